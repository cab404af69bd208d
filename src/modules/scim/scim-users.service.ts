import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SessionsService } from '../accounts/sessions.service';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { compileFilter, parseFilter } from './scim-filter';
import {
  applyUserPatch,
  parsePatchBody,
  ScimUserState,
  USER_SCHEMA,
  ENTERPRISE_USER_SCHEMA,
} from './scim-patch';
import { listResponse, ScimUserRow, toScimUser, versionOf } from './scim-resources';
import { ScimError } from './scim.errors';
import { ScimUsersQueries } from './scim-users.queries';
import { ListParams, pageOf, scimBase, userFromResource } from './scim-input';

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
    private readonly users: UserDirectoryService,
    private readonly sessions: SessionsService,
    private readonly apiKeys: ApiKeysService,
    private readonly audit: AuditService,
    private readonly queries: ScimUsersQueries,
  ) {
    this.base = scimBase(config);
  }

  async list(params: ListParams) {
    const { startIndex, count } = pageOf(params);
    const filter = params.filter
      ? compileFilter(parseFilter(params.filter), this.queries.filterColumns, [
          USER_SCHEMA,
          ENTERPRISE_USER_SCHEMA,
        ])
      : undefined;
    const offset = startIndex - 1;
    const limit = Math.max(count, 1);
    // No transaction: the page is read on the DataSource's manager.
    const em = this.dataSource.manager;
    let rows: ScimUserRow[];
    let total: number;
    if (filter) {
      // A filtered page (typically `userName eq`, one row) in one round trip, its total alongside;
      // counted apart only for a page past the end.
      const found = await this.queries.pageWithTotal(em, filter, offset, limit);
      rows = found;
      total = found.length
        ? Number(found[0].total)
        : startIndex > 1
          ? await this.queries.count(em, filter)
          : 0;
    } else {
      // Unfiltered, the page walks the created_at index; a window count would visit every account.
      [rows, total] = await Promise.all([
        this.queries.page(em, undefined, offset, limit),
        this.queries.count(em, undefined),
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
      const found = await this.queries.withUserName(em, input.userName, input.email);
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
      await this.queries.link(em, user.id, input, false);
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
      await this.queries.link(em, id, before, true);
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
      const taken = (await this.queries.withUserName(em, after.userName)).some((row) => row.id !== userId);
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
    await this.queries.link(em, userId, after, false);
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

  /** The visible user, locked for a write; 404 when missing or SCIM-deleted, 412 on a stale If-Match. */
  private async load(em: EntityManager, id: string, lock: boolean, ifMatch?: string, includeDeleted = false) {
    if (!isUuid(id)) throw new ScimError(404, `No user with id ${id}.`);
    const row = await this.queries.one(em, id, lock, includeDeleted);
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
