import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SpaceRoleName } from '../../common/permissions/space-access.port';

/*
 * Effective roles: a member's role in a space is the highest of their direct
 * grant (space_memberships.direct_role) and the roles their SCIM groups are
 * mapped to in that space. The group tables belong to the SCIM module; they
 * are read here (never written), so that one statement recomputes a whole
 * space whatever the number of members.
 */

const RANKED = `(ARRAY['viewer','editor','admin'])[max(CASE role WHEN 'admin' THEN 3 WHEN 'editor' THEN 2 ELSE 1 END)]`;

const RANK: Record<SpaceRoleName, number> = { viewer: 1, editor: 2, admin: 3 };

/** The highest of the roles (admin > editor > viewer); null for none. */
export function highestRole(roles: SpaceRoleName[]): SpaceRoleName | null {
  return roles.reduce<SpaceRoleName | null>(
    (best, role) => (!best || RANK[role] > RANK[best] ? role : best),
    null,
  );
}

export interface RoleChange {
  user_id: string;
  /** Null: the membership was removed. */
  role: SpaceRoleName | null;
  /** Null: the membership was added. */
  previous_role: SpaceRoleName | null;
  admins_before: number;
}

/** A direct grant to set (a role) or clear (null) in the same statement as the recomputation. */
export interface DirectGrantChange {
  user_id: string;
  direct_role: SpaceRoleName | null;
}

/** How many admins the space has after the changes. */
export function adminsAfter(changes: RoleChange[]): number | null {
  if (!changes.length) return null;
  let admins = changes[0].admins_before;
  for (const change of changes) {
    if (change.previous_role === 'admin' && change.role !== 'admin') admins--;
    if (change.role === 'admin' && change.previous_role !== 'admin') admins++;
  }
  return admins;
}

export interface GroupGrantRow {
  user_id: string;
  group_id: string;
  group_name: string;
  role: SpaceRoleName;
}

export interface SpaceGrantRow {
  space_id: string;
  user_id: string;
  role: SpaceRoleName;
}

/**
 * The effective-role statements, in raw SQL rather than the repository API:
 * one statement recomputes (adds, changes, removes) the memberships of a
 * whole space whatever the number of members, and the group grants are a
 * three-table join read by set. Indexes: space_memberships' primary key
 * (space_id, user_id) and space_memberships_user_idx;
 * scim_group_role_mappings_space_idx (space_id, group_id);
 * scim_group_members' primary key (group_id, user_id) and
 * scim_group_members_user_idx; scim_groups' primary key.
 */
@Injectable()
export class MembershipRolesQueries {
  /**
   * Writes the effective role of the space's members (of `userIds` only, when
   * given): adds, changes and removes memberships in one statement and answers
   * what changed, with the number of admins the space had before.
   *
   * `direct` sets or clears direct grants in that same statement (the
   * permissions import): a new member has no row to hold a direct grant before
   * the recomputation, and a row cannot exist without its effective role. Only
   * changes of the effective role are answered; a direct grant that changes
   * under a higher group role is written but answered as no change.
   */
  async recomputeSpaceRoles(
    em: EntityManager,
    spaceId: string,
    userIds?: string[],
    direct: DirectGrantChange[] = [],
  ): Promise<RoleChange[]> {
    const ids = userIds ? [...new Set([...userIds, ...direct.map((d) => d.user_id)])] : undefined;
    const only = (column: string) => (ids ? ` AND ${column} = ANY($4::uuid[])` : '');
    const params: unknown[] = [spaceId, direct.map((d) => d.user_id), direct.map((d) => d.direct_role)];
    if (ids) params.push(ids);
    return (await em.query(
      `WITH direct_set AS (
         SELECT user_id, direct_role FROM unnest($2::uuid[], $3::text[]) AS d(user_id, direct_role)
       ),
       direct AS (
         SELECT m.user_id, m.direct_role FROM space_memberships m
          WHERE m.space_id = $1${only('m.user_id')}
            AND NOT EXISTS (SELECT 1 FROM direct_set d WHERE d.user_id = m.user_id)
         UNION ALL
         SELECT user_id, direct_role FROM direct_set
       ),
       grants AS (
         SELECT user_id, direct_role AS role FROM direct WHERE direct_role IS NOT NULL
         UNION ALL
         SELECT gm.user_id, rm.role FROM scim_group_role_mappings rm
           JOIN scim_group_members gm ON gm.group_id = rm.group_id
          WHERE rm.space_id = $1${only('gm.user_id')}
       ),
       wanted AS (SELECT user_id, ${RANKED} AS role FROM grants GROUP BY user_id),
       target AS (
         SELECT w.user_id, w.role, d.direct_role FROM wanted w LEFT JOIN direct d ON d.user_id = w.user_id
       ),
       current AS (SELECT user_id, role, direct_role FROM space_memberships WHERE space_id = $1${only('user_id')}),
       diff AS (
         SELECT coalesce(t.user_id, c.user_id) AS user_id, t.role, c.role AS previous_role, t.direct_role
           FROM target t FULL JOIN current c ON c.user_id = t.user_id
          WHERE t.role IS DISTINCT FROM c.role OR t.direct_role IS DISTINCT FROM c.direct_role
       ),
       added AS (
         INSERT INTO space_memberships (space_id, user_id, role, direct_role)
         SELECT $1, user_id, role, direct_role FROM diff WHERE previous_role IS NULL RETURNING user_id
       ),
       changed AS (
         UPDATE space_memberships m SET role = d.role, direct_role = d.direct_role FROM diff d
          WHERE m.space_id = $1 AND m.user_id = d.user_id AND d.previous_role IS NOT NULL AND d.role IS NOT NULL
         RETURNING m.user_id
       ),
       removed AS (
         DELETE FROM space_memberships m USING diff d
          WHERE m.space_id = $1 AND m.user_id = d.user_id AND d.role IS NULL RETURNING m.user_id
       )
       SELECT d.user_id, d.role, d.previous_role,
              (SELECT count(*)::int FROM space_memberships WHERE space_id = $1 AND role = 'admin') AS admins_before
         FROM diff d WHERE d.role IS DISTINCT FROM d.previous_role ORDER BY d.user_id`,
      params,
    )) as RoleChange[];
  }

  /** The roles the users hold in the space through SCIM groups. */
  async groupGrantsOf(em: EntityManager, spaceId: string, userIds: string[]): Promise<GroupGrantRow[]> {
    if (!userIds.length) return [];
    return (await em.query(
      `SELECT gm.user_id, g.id AS group_id, g.display_name AS group_name, rm.role
         FROM scim_group_role_mappings rm
         JOIN scim_group_members gm ON gm.group_id = rm.group_id
         JOIN scim_groups g ON g.id = rm.group_id
        WHERE rm.space_id = $1 AND gm.user_id = ANY($2::uuid[])
        ORDER BY g.display_name, g.id`,
      [spaceId, userIds],
    )) as GroupGrantRow[];
  }

  /** The direct grants of the spaces' members (members only through groups are left out). */
  async directGrantsIn(em: EntityManager, spaceIds: string[]): Promise<SpaceGrantRow[]> {
    if (!spaceIds.length) return [];
    return (await em.query(
      `SELECT space_id, user_id, direct_role AS role FROM space_memberships
        WHERE space_id = ANY($1::uuid[]) AND direct_role IS NOT NULL
        ORDER BY space_id, user_id`,
      [spaceIds],
    )) as SpaceGrantRow[];
  }

  /** The roles SCIM groups grant in the spaces, one row per member and mapped group. */
  async groupGrantsIn(
    em: EntityManager,
    spaceIds: string[],
  ): Promise<(SpaceGrantRow & { group_id: string; group_name: string })[]> {
    if (!spaceIds.length) return [];
    return (await em.query(
      `SELECT rm.space_id, gm.user_id, g.id AS group_id, g.display_name AS group_name, rm.role
         FROM scim_group_role_mappings rm
         JOIN scim_group_members gm ON gm.group_id = rm.group_id
         JOIN scim_groups g ON g.id = rm.group_id
        WHERE rm.space_id = ANY($1::uuid[])
        ORDER BY rm.space_id, gm.user_id, g.display_name, g.id`,
      [spaceIds],
    )) as (SpaceGrantRow & { group_id: string; group_name: string })[];
  }
}
