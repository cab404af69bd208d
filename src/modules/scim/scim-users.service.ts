import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction-runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SessionsService } from '../accounts/sessions.service';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { UsersService } from '../users/users.service';
import { compileFilter, FilterColumn, parseFilter } from './scim-filter';
import {
  applyUserPatch,
  parsePatchBody,
  ScimUserState,
  USER_SCHEMA,
  ENTERPRISE_USER_SCHEMA,
} from './scim-patch';
import { listResponse, ScimUserRow, toScimUser, versionOf } from './scim-resources';
import { ScimError } from './scim.errors';
import { ListParams, pageOf, scimBase, userFromResource } from './scim-input';

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

const DEPROVISIONED = 'scim_deprovisioned';

/**
 * SCIM Users over Verity accounts: userName is the identity provider's login,
 * kept beside the account; the work email is the account email. DELETE
 * deactivates and hides the account.
 */
@Injectable()
export class ScimUsersService {
  private readonly base: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysService,
    private readonly audit: AuditService,
  ) {
    this.base = scimBase(config);
  }

  async list(params: ListParams) {
    const { startIndex, count } = pageOf(params);
    let where = VISIBLE;
    let values: unknown[] = [];
    if (params.filter) {
      const compiled = compileFilter(parseFilter(params.filter), USER_COLUMNS, [
        USER_SCHEMA,
        ENTERPRISE_USER_SCHEMA,
      ]);
      where = `${VISIBLE} AND ${compiled.sql}`;
      values = compiled.params;
    }
    const n = values.length;
    const pageSql = (fields: string) =>
      `SELECT ${fields} ${FROM_USERS} WHERE ${where} ORDER BY u.created_at, u.id OFFSET $${n + 1} LIMIT $${n + 2}`;
    const pageValues = [...values, startIndex - 1, Math.max(count, 1)];
    const countTotal = async () =>
      (
        (await this.dataSource.query(
          `SELECT count(*)::int AS total ${FROM_USERS} WHERE ${where}`,
          values,
        )) as {
          total: number;
        }[]
      )[0].total;
    let rows: ScimUserRow[];
    let total: number;
    if (params.filter) {
      // A filtered page (typically `userName eq`, one row) in one round trip, its total alongside;
      // counted apart only for a page past the end.
      const found = (await this.dataSource.query(
        pageSql(`${USER_FIELDS}, count(*) OVER () AS total`),
        pageValues,
      )) as (ScimUserRow & { total: string })[];
      rows = found;
      total = found.length ? Number(found[0].total) : startIndex > 1 ? await countTotal() : 0;
    } else {
      // Unfiltered, the page walks the created_at index; a window count would visit every account.
      [rows, total] = await Promise.all([
        this.dataSource.query(pageSql(USER_FIELDS), pageValues) as Promise<ScimUserRow[]>,
        countTotal(),
      ]);
    }
    const page = count === 0 ? [] : rows;
    return listResponse(
      page.map((row) => toScimUser(row, this.base)),
      total,
      startIndex,
    );
  }

  async get(id: string): Promise<Record<string, unknown>> {
    const row = await this.load(this.dataSource.manager, id, false);
    return toScimUser(row, this.base);
  }

  async create(body: unknown, tokenId: string): Promise<Record<string, unknown>> {
    const input = userFromResource(body);
    return this.tx.run(async (em) => {
      // The accounts with this userName or this email, in one round trip (a full sync creates thousands).
      const found = await this.withUserName(em, input.userName, input.email);
      const named = found.filter((row) => row.by_name);
      if (named.some((row) => !row.deleted_at)) {
        throw new ScimError(409, `A user with the userName ${input.userName} already exists.`, 'uniqueness');
      }
      // Provisioned again after a SCIM delete: the same account comes back.
      let restoring: string | undefined = named[0]?.id;
      if (!restoring) {
        const existing = found.find((row) => row.by_email);
        if (existing && !existing.deleted_at) {
          throw new ScimError(409, `An account with the email ${input.email} already exists.`, 'uniqueness');
        }
        restoring = existing?.id;
      }
      if (restoring) {
        const before = await this.state(em, restoring, { includeDeleted: true });
        await this.applyState(em, restoring, before, input, tokenId, 'scim.user_restored');
        return toScimUser(await this.load(em, restoring, false), this.base);
      }
      const user = await this.users.create(
        em,
        {
          email: input.email,
          passwordHash: null,
          firstName: input.givenName,
          lastName: input.familyName,
          isActive: input.active,
          isSuperadmin: false,
        },
        null,
      );
      await this.link(em, user.id, input, false);
      await this.audit.record(em, null, {
        action: 'scim.user_created',
        resourceType: 'user',
        resourceId: user.id,
        details: {
          scim_token_id: tokenId,
          user_name: input.userName,
          email: input.email,
          active: input.active,
        },
      });
      return toScimUser(await this.load(em, user.id, false), this.base);
    });
  }

  async replace(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const input = userFromResource(body);
    return this.tx.run(async (em) => {
      const before = await this.state(em, id, { ifMatch });
      await this.applyState(em, id, before, input, tokenId, 'scim.user_replaced');
      return toScimUser(await this.load(em, id, false), this.base);
    });
  }

  async patch(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const operations = parsePatchBody(body);
    return this.tx.run(async (em) => {
      const before = await this.state(em, id, { ifMatch });
      const after = applyUserPatch(before, operations);
      await this.applyState(em, id, before, after, tokenId, 'scim.user_patched');
      return toScimUser(await this.load(em, id, false), this.base);
    });
  }

  /** Deprovisioning: the account is deactivated (sessions and API keys revoked) and hidden from SCIM. */
  async delete(id: string, tokenId: string, ifMatch?: string): Promise<void> {
    await this.tx.run(async (em) => {
      const before = await this.state(em, id, { ifMatch });
      await this.applyState(em, id, before, { ...before, active: false }, tokenId, 'scim.user_deactivated');
      await this.link(em, id, before, true);
      await this.audit.record(em, null, {
        action: 'scim.user_deleted',
        resourceType: 'user',
        resourceId: id,
        details: { scim_token_id: tokenId, user_name: before.userName },
      });
    });
  }

  private async applyState(
    em: EntityManager,
    userId: string,
    before: ScimUserState,
    after: ScimUserState,
    tokenId: string,
    action: string,
  ): Promise<void> {
    const changed: string[] = [];
    if (after.userName !== before.userName) changed.push('userName');
    if (after.email.toLowerCase() !== before.email) changed.push('emails');
    if (after.givenName !== before.givenName) changed.push('name.givenName');
    if (after.familyName !== before.familyName) changed.push('name.familyName');
    if (after.active !== before.active) changed.push('active');
    if (after.externalId !== before.externalId) changed.push('externalId');
    if (JSON.stringify(after.enterprise) !== JSON.stringify(before.enterprise))
      changed.push(ENTERPRISE_USER_SCHEMA);
    if (after.userName.toLowerCase() !== before.userName.toLowerCase()) {
      const taken = (await this.withUserName(em, after.userName)).some((row) => row.id !== userId);
      if (taken) {
        throw new ScimError(409, `A user with the userName ${after.userName} already exists.`, 'uniqueness');
      }
    }
    if (changed.some((field) => ['emails', 'name.givenName', 'name.familyName', 'active'].includes(field))) {
      await this.users.updateIdentity(em, userId, {
        email: after.email,
        firstName: after.givenName,
        lastName: after.familyName,
        isActive: after.active,
      });
    }
    // Always written: it restores a SCIM-deleted account and records the link.
    await this.link(em, userId, after, false);
    if (before.active && !after.active) {
      await this.sessions.revokeAllOf(em, userId, DEPROVISIONED);
      await this.apiKeys.revokeAllOf(em, userId, DEPROVISIONED);
    }
    if (changed.length || action === 'scim.user_restored') {
      await this.audit.record(em, null, {
        action,
        resourceType: 'user',
        resourceId: userId,
        details: {
          scim_token_id: tokenId,
          changed,
          ...(before.active && !after.active ? { deactivated: true } : {}),
        },
      });
    }
  }

  /**
   * The accounts (SCIM-deleted ones too) whose userName is `userName`, ignoring case, and,
   * when given, the one whose email is `email`.
   */
  private async withUserName(
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

  private async link(
    em: EntityManager,
    userId: string,
    state: Pick<ScimUserState, 'userName' | 'externalId' | 'enterprise'>,
    deleted: boolean,
  ) {
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

  /** The visible user, locked for a write; 404 when missing or SCIM-deleted, 412 on a stale If-Match. */
  private async load(em: EntityManager, id: string, lock: boolean, ifMatch?: string, includeDeleted = false) {
    if (!isUuid(id)) throw new ScimError(404, `No user with id ${id}.`);
    const [row] = (await em.query(
      `${SELECT_USERS} WHERE u.id = $1${includeDeleted ? '' : ` AND ${VISIBLE}`}${lock ? ' FOR UPDATE OF u' : ''}`,
      [id],
    )) as ScimUserRow[];
    if (!row) throw new ScimError(404, `No user with id ${id}.`);
    if (ifMatch && ifMatch !== '*' && ifMatch !== versionOf(row.updated_at)) {
      throw new ScimError(412, 'The user has changed since that version (If-Match).');
    }
    return row;
  }

  private async state(
    em: EntityManager,
    id: string,
    options: { includeDeleted?: boolean; ifMatch?: string } = {},
  ): Promise<ScimUserState> {
    const row = await this.load(em, id, true, options.ifMatch, options.includeDeleted);
    return {
      userName: row.user_name,
      email: row.email,
      externalId: row.external_id,
      givenName: row.first_name,
      familyName: row.last_name,
      active: row.is_active,
      enterprise: row.enterprise ?? {},
    };
  }
}
