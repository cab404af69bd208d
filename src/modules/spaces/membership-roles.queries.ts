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

/**
 * Writes the effective role of the space's members (of `userIds` only, when
 * given): adds, changes and removes memberships in one statement and answers
 * what changed, with the number of admins the space had before.
 */
export async function recomputeSpaceRoles(
  em: EntityManager,
  spaceId: string,
  userIds?: string[],
): Promise<RoleChange[]> {
  const only = (column: string) => (userIds ? ` AND ${column} = ANY($2::uuid[])` : '');
  return (await em.query(
    `WITH grants AS (
       SELECT m.user_id, m.direct_role AS role FROM space_memberships m
        WHERE m.space_id = $1 AND m.direct_role IS NOT NULL${only('m.user_id')}
       UNION ALL
       SELECT gm.user_id, rm.role FROM scim_group_role_mappings rm
         JOIN scim_group_members gm ON gm.group_id = rm.group_id
        WHERE rm.space_id = $1${only('gm.user_id')}
     ),
     wanted AS (SELECT user_id, ${RANKED} AS role FROM grants GROUP BY user_id),
     current AS (SELECT user_id, role FROM space_memberships WHERE space_id = $1${only('user_id')}),
     diff AS (
       SELECT coalesce(w.user_id, c.user_id) AS user_id, w.role, c.role AS previous_role
         FROM wanted w FULL JOIN current c ON c.user_id = w.user_id
        WHERE w.role IS DISTINCT FROM c.role
     ),
     added AS (
       INSERT INTO space_memberships (space_id, user_id, role)
       SELECT $1, user_id, role FROM diff WHERE previous_role IS NULL RETURNING user_id
     ),
     changed AS (
       UPDATE space_memberships m SET role = d.role FROM diff d
        WHERE m.space_id = $1 AND m.user_id = d.user_id AND d.previous_role IS NOT NULL AND d.role IS NOT NULL
       RETURNING m.user_id
     ),
     removed AS (
       DELETE FROM space_memberships m USING diff d
        WHERE m.space_id = $1 AND m.user_id = d.user_id AND d.role IS NULL RETURNING m.user_id
     )
     SELECT d.user_id, d.role, d.previous_role,
            (SELECT count(*)::int FROM space_memberships WHERE space_id = $1 AND role = 'admin') AS admins_before
       FROM diff d ORDER BY d.user_id`,
    userIds ? [spaceId, userIds] : [spaceId],
  )) as RoleChange[];
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

/** The roles the users hold in the space through SCIM groups. */
export async function groupGrantsOf(
  em: EntityManager,
  spaceId: string,
  userIds: string[],
): Promise<GroupGrantRow[]> {
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
