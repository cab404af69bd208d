import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { composedText } from '../../database/statement-text';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import type { SpaceAccessRow } from '../../common/permissions/space-access.port';
import { isUuid } from './slug';

/** A spaces row as the insert returns it. */
export interface SpaceRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  features: Record<string, boolean>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * insertSpace's statement, composed once: without an idempotency claim (an idempotency key's, parameters
 * from $7), and with one, where the space goes in only if the claim did (the claim's SQL in place of
 * %CLAIM%, through composedText).
 */
const insertSpaceSql = (claimed: boolean) => `WITH ${
  claimed
    ? `claim AS (%CLAIM%), s AS (
       INSERT INTO spaces (id, name, slug, description, created_by)
       SELECT $1::uuid, $2::text, $3::text, $4::text, $5::uuid WHERE EXISTS (SELECT 1 FROM claim)`
    : `s AS (
       INSERT INTO spaces (id, name, slug, description, created_by) VALUES ($1, $2, $3, $4, $5)`
}
     ON CONFLICT (slug) DO NOTHING
     RETURNING id, name, slug, description, features, created_by, created_at, updated_at
   ), m AS (
     INSERT INTO space_memberships (space_id, user_id, role, direct_role) SELECT id, $5, 'admin', 'admin' FROM s
   ), o AS (
     INSERT INTO outbox_events (type, space_id, actor_id, payload)
     SELECT e->>'type', (e->>'space_id')::uuid, (e->>'actor_id')::uuid, e->'payload'
       FROM s, (SELECT $6::jsonb AS e) event
   )
   SELECT ${claimed ? 'EXISTS (SELECT 1 FROM claim)' : 'true'} AS claimed, s.* FROM (SELECT 1) one LEFT JOIN s ON true`;
const INSERT_SPACE_SQL = { unclaimed: insertSpaceSql(false), claimed: insertSpaceSql(true) };

/**
 * The spaces module's raw SQL outside the effective-role statements
 * (membership-roles.queries.ts). Raw because each is one round trip the
 * repository API would split or could not say:
 * - the space-role check reads the space and the caller's membership in one
 *   statement (it runs on most requests): spaces_slug_key or the spaces
 *   primary key, then space_memberships' primary key (space_id, user_id);
 * - the members among a set of users: space_memberships' primary key;
 * - the free-slug search: spaces_slug_key (equality, and LIKE on a prefix);
 * - the space created with its first membership and its event in one
 *   statement: `ON CONFLICT (slug)` on spaces_slug_key instead of a lookup.
 */
@Injectable()
export class SpacesQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  /** The space (by slug or id) with the user's membership role, null when there is no such space. */
  async spaceWithRole(
    em: EntityManager,
    spaceIdOrSlug: string,
    userId: string,
  ): Promise<SpaceAccessRow | null> {
    // One indexed query: the space by its unique slug (or id) and the caller's membership by primary key.
    const column = isUuid(spaceIdOrSlug) ? 's.id' : 's.slug';
    const rows = (await em.query(
      `SELECT s.id, s.slug, s.name, s.features, m.role
         FROM spaces s
         LEFT JOIN space_memberships m ON m.space_id = s.id AND m.user_id = $2
        WHERE ${column} = $1`,
      [spaceIdOrSlug, userId],
    )) as SpaceAccessRow[];
    return rows[0] ?? null;
  }

  /**
   * Creates the space, its creator's admin membership and its outbox event (`eventRow`, OutboxService.row)
   * in one statement, so one round trip and no transaction block; null when the slug is taken
   * (spaces_slug_key answers, nothing is written). A named prepared statement: parsing and planning it
   * cost more than running it.
   */
  async insertSpace(
    space: { id: string; name: string; slug: string; description: string | null; createdBy: string },
    eventRow: string,
    claim?: { sql: string; params: unknown[] },
  ): Promise<{ row: SpaceRow | null; claimed: boolean }> {
    const params = [space.id, space.name, space.slug, space.description, space.createdBy, eventRow];
    const [row] = await this.prepared.queryOutsideTransaction<
      SpaceRow & { claimed: boolean; id: string | null }
    >(
      claim ? composedText(INSERT_SPACE_SQL.claimed, '%CLAIM%', claim.sql) : INSERT_SPACE_SQL.unclaimed,
      claim ? [...params, ...claim.params] : params,
    );
    const { claimed: ran, ...inserted } = row;
    return { row: inserted.id === null ? null : inserted, claimed: ran };
  }

  /** Which of `userIds` are members of the space. */
  async memberIdsAmong(em: EntityManager, spaceId: string, userIds: string[]): Promise<string[]> {
    const rows = (await em.query(
      `SELECT user_id FROM space_memberships WHERE space_id = $1 AND user_id = ANY($2::uuid[])`,
      [spaceId, userIds],
    )) as { user_id: string }[];
    return rows.map((row) => row.user_id);
  }

  /** The slugs equal to `slug` or starting with `prefixPattern` (a LIKE pattern, escaped). */
  async slugsLike(em: EntityManager, slug: string, prefixPattern: string): Promise<string[]> {
    const rows = (await em.query(`SELECT slug FROM spaces WHERE slug = $1 OR slug LIKE $2`, [
      slug,
      prefixPattern,
    ])) as { slug: string }[];
    return rows.map((row) => row.slug);
  }
}
