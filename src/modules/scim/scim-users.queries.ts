import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { FilterColumn } from './scim-filter';
import type { ScimUserState } from './scim-patch';
import type { ScimUserRow } from './scim-resources';

// userName is the SCIM link's user_name, or the email of an account SCIM did not provision.
const USER_NAME = 'coalesce(su.user_name, u.email)';

/**
 * The accounts whose userName is `param` (lowercased): each side of the union
 * walks a unique index (lower(user_name), then the email), where a
 * comparison of the coalesce would read every account.
 */
const userNameIs = (param: string) =>
  `u.id IN (SELECT s1.user_id FROM scim_users s1 WHERE lower(s1.user_name) = ${param}
            UNION ALL
            SELECT u1.id FROM users u1 WHERE u1.email = ${param}
               AND NOT EXISTS (SELECT 1 FROM scim_users s2 WHERE s2.user_id = u1.id AND s2.user_name IS NOT NULL))`;

const EMAIL: FilterColumn = { sql: 'u.email', type: 'string', lowercased: true };

const USER_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 'u.id', type: 'uuid' },
  username: { sql: USER_NAME, type: 'string', eq: userNameIs },
  emails: EMAIL,
  'emails.value': EMAIL,
  // Verity keeps one address, the work one.
  'emails[type eq "work"].value': EMAIL,
  externalid: { sql: 'su.external_id', type: 'string', caseExact: true },
  displayname: { sql: `concat_ws(' ', nullif(u.first_name, ''), nullif(u.last_name, ''))`, type: 'string' },
  'name.givenname': { sql: 'u.first_name', type: 'string' },
  'name.familyname': { sql: 'u.last_name', type: 'string' },
  active: { sql: 'u.is_active', type: 'boolean' },
};

// SCIM reads the account with its SCIM link in one query: the users table belongs to the users
// module, read here (never written) so that a filtered page is one indexed round trip.
const USER_FIELDS = `u.id, ${USER_NAME} AS user_name, u.email, u.first_name, u.last_name, u.is_active,
       su.external_id, su.enterprise, u.created_at,
       GREATEST(u.updated_at, su.updated_at) AS updated_at`;
const FROM_USERS = 'FROM users u LEFT JOIN scim_users su ON su.user_id = u.id';
const SELECT_USERS = `SELECT ${USER_FIELDS} ${FROM_USERS}`;
const VISIBLE = 'su.deleted_at IS NULL';

/** A compiled SCIM filter: a condition and its bound values ($1…). */
export interface CompiledUserFilter {
  sql: string;
  params: unknown[];
}

/**
 * SCIM Users in raw SQL rather than the repository API: an account and its
 * SCIM link are read in one join, filters compile to SQL conditions, and the
 * link is upserted with its `updated_at` moving only on a real change.
 * Indexes: users_created_at_idx (the unfiltered page, in created_at, id order)
 * and the users primary key; scim_users_user_name_key (lower(user_name)),
 * users_email_key and scim_users' primary key (user_id) for userName
 * lookups; scim_users_external_id_idx for externalId filters.
 */
@Injectable()
export class ScimUsersQueries {
  /** The filterable attributes and their SQL, for compileFilter. */
  readonly filterColumns = USER_COLUMNS;

  /** A page of visible users matching `filter`, each row with the match count in `total`. */
  async pageWithTotal(
    em: EntityManager,
    filter: CompiledUserFilter,
    offset: number,
    limit: number,
  ): Promise<(ScimUserRow & { total: string })[]> {
    return (await em.query(
      pageSql(`${USER_FIELDS}, count(*) OVER () AS total`, filter),
      pageValues(filter, offset, limit),
    )) as (ScimUserRow & { total: string })[];
  }

  /** A page of visible users (matching `filter`, when given). */
  async page(
    em: EntityManager,
    filter: CompiledUserFilter | undefined,
    offset: number,
    limit: number,
  ): Promise<ScimUserRow[]> {
    return (await em.query(pageSql(USER_FIELDS, filter), pageValues(filter, offset, limit))) as ScimUserRow[];
  }

  /** How many visible users match `filter` (all of them without one). */
  async count(em: EntityManager, filter: CompiledUserFilter | undefined): Promise<number> {
    return (
      (await em.query(
        `SELECT count(*)::int AS total ${FROM_USERS} WHERE ${whereOf(filter)}`,
        filter?.params ?? [],
      )) as {
        total: number;
      }[]
    )[0].total;
  }

  /** The user (visible only unless `includeDeleted`), locked for a write when `lock`. */
  async one(
    em: EntityManager,
    id: string,
    lock: boolean,
    includeDeleted: boolean,
  ): Promise<ScimUserRow | undefined> {
    const [row] = (await em.query(
      `${SELECT_USERS} WHERE u.id = $1${includeDeleted ? '' : ` AND ${VISIBLE}`}${lock ? ' FOR UPDATE OF u' : ''}`,
      [id],
    )) as ScimUserRow[];
    return row;
  }

  /**
   * The accounts (SCIM-deleted ones too) whose userName is `userName`, ignoring case, and,
   * when given, the one whose email is `email`.
   */
  async withUserName(
    em: EntityManager,
    userName: string,
    email?: string,
  ): Promise<{ id: string; deleted_at: Date | null; by_name: boolean; by_email: boolean }[]> {
    const byEmail = email ? ' UNION ALL SELECT u3.id FROM users u3 WHERE u3.email = $2' : '';
    const where = `${userNameIs('$1').slice(0, -1)}${byEmail})`;
    return (await em.query(
      `SELECT u.id, su.deleted_at, lower(${USER_NAME}) = $1 AS by_name, ${email ? 'u.email = $2' : 'false'} AS by_email
         ${FROM_USERS} WHERE ${where}`,
      email ? [userName.toLowerCase(), email.toLowerCase()] : [userName.toLowerCase()],
    )) as { id: string; deleted_at: Date | null; by_name: boolean; by_email: boolean }[];
  }

  /** Creates or updates the account's SCIM link; `updated_at` moves only when something changed. */
  async link(
    em: EntityManager,
    userId: string,
    state: Pick<ScimUserState, 'userName' | 'externalId' | 'enterprise'>,
    deleted: boolean,
  ): Promise<void> {
    await em.query(
      `INSERT INTO scim_users (user_id, external_id, user_name, enterprise, deleted_at)
       VALUES ($1, $2, $3, $4::jsonb, CASE WHEN $5 THEN now() END)
       ON CONFLICT (user_id) DO UPDATE
         SET external_id = EXCLUDED.external_id, user_name = EXCLUDED.user_name,
             enterprise = EXCLUDED.enterprise, deleted_at = EXCLUDED.deleted_at,
             updated_at = CASE WHEN scim_users.external_id IS DISTINCT FROM EXCLUDED.external_id
                                 OR scim_users.user_name IS DISTINCT FROM EXCLUDED.user_name
                                 OR scim_users.enterprise IS DISTINCT FROM EXCLUDED.enterprise
                                 OR scim_users.deleted_at IS DISTINCT FROM EXCLUDED.deleted_at
                               THEN now() ELSE scim_users.updated_at END`,
      [userId, state.externalId, state.userName, JSON.stringify(state.enterprise), deleted],
    );
  }
}

const whereOf = (filter: CompiledUserFilter | undefined) =>
  filter ? `${VISIBLE} AND ${filter.sql}` : VISIBLE;

const pageSql = (fields: string, filter: CompiledUserFilter | undefined) => {
  const n = filter?.params.length ?? 0;
  return `SELECT ${fields} ${FROM_USERS} WHERE ${whereOf(filter)} ORDER BY u.created_at, u.id OFFSET $${n + 1} LIMIT $${n + 2}`;
};

const pageValues = (filter: CompiledUserFilter | undefined, offset: number, limit: number) => [
  ...(filter?.params ?? []),
  offset,
  limit,
];
