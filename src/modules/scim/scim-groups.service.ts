import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction-runner';
import { AuditService } from '../../platform/audit/audit.service';
import { MembersService } from '../spaces/members.service';
import { SpacesService } from '../spaces/spaces.service';
import { UsersService } from '../users/users.service';
import { ScimGroup } from './entities/scim-group.entity';
import { compileFilter, FilterColumn, parseFilter } from './scim-filter';
import { groupFromResource, ListParams, pageOf, parseGroupName, scimBase } from './scim-input';
import { applyGroupPatch, GROUP_SCHEMA, parsePatchBody } from './scim-patch';
import { listResponse, ScimGroupRow, toScimGroup, versionOf } from './scim-resources';
import { ScimError } from './scim.errors';

const GROUP_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 'g.id', type: 'uuid' },
  displayname: { sql: `(s.slug || ':' || g.role)`, type: 'string' },
  externalid: { sql: 'g.external_id', type: 'string', caseExact: true },
};

// The space's slug names the group; read along in the same query.
const SELECT_GROUPS = `SELECT g.id, s.slug, g.role, g.external_id, g.created_at, g.updated_at
  FROM scim_groups g JOIN spaces s ON s.id = g.space_id`;

interface LoadedGroup extends ScimGroupRow {
  space_id: string;
}

/**
 * SCIM Groups over space memberships: a group is the members of one space
 * holding one role, named `<space-slug>:<role>`. Adding a member makes the
 * user a member of the space with that role (changing the role they had);
 * removing one removes their membership. A space keeps its last admin (409).
 */
@Injectable()
export class ScimGroupsService {
  private readonly base: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UsersService,
    private readonly spaces: SpacesService,
    private readonly members: MembersService,
    private readonly audit: AuditService,
  ) {
    this.base = scimBase(config);
  }

  async list(params: ListParams) {
    const { startIndex, count } = pageOf(params);
    let where = 'true';
    let values: unknown[] = [];
    if (params.filter) {
      const compiled = compileFilter(parseFilter(params.filter), GROUP_COLUMNS, [GROUP_SCHEMA]);
      where = compiled.sql;
      values = compiled.params;
    }
    const n = values.length;
    const rows = (await this.dataSource.query(
      `${SELECT_GROUPS} WHERE ${where} ORDER BY g.created_at, g.id OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...values, startIndex - 1, count],
    )) as LoadedGroup[];
    const [{ total }] = (await this.dataSource.query(
      `SELECT count(*)::int AS total FROM scim_groups g JOIN spaces s ON s.id = g.space_id WHERE ${where}`,
      values,
    )) as { total: number }[];
    const withMembers = !/\bmembers\b/i.test(params.excludedAttributes ?? '');
    const resources = [];
    for (const row of rows) {
      const members = withMembers ? await this.memberList(this.dataSource.manager, row) : null;
      resources.push(toScimGroup(row, members, this.base));
    }
    return listResponse(resources, total, startIndex);
  }

  async get(id: string, excludedAttributes?: string) {
    const row = await this.load(this.dataSource.manager, id, false);
    const members = /\bmembers\b/i.test(excludedAttributes ?? '')
      ? null
      : await this.memberList(this.dataSource.manager, row);
    return toScimGroup(row, members, this.base);
  }

  async create(body: unknown, tokenId: string) {
    const input = groupFromResource(body);
    return this.tx.run(async (em) => {
      const [space] = await this.spaces.summaries(em, { slugs: [input.slug] });
      if (!space) {
        throw new ScimError(
          400,
          `No space has the slug "${input.slug}": create the space in Verity first.`,
          'invalidValue',
        );
      }
      const repo = em.getRepository(ScimGroup);
      if (await repo.existsBy({ spaceId: space.id, role: input.role })) {
        throw new ScimError(409, `The group ${input.slug}:${input.role} already exists.`, 'uniqueness');
      }
      const group = await repo.save(
        repo.create({ spaceId: space.id, role: input.role, externalId: input.externalId }),
      );
      await this.audit.record(em, null, {
        action: 'scim.group_created',
        resourceType: 'scim_group',
        resourceId: group.id,
        spaceId: space.id,
        details: { scim_token_id: tokenId, display_name: `${input.slug}:${input.role}` },
      });
      const row = await this.load(em, group.id, true);
      if (input.members?.length) await this.setMembers(em, row, input.members, tokenId);
      return this.resource(em, group.id);
    });
  }

  async replace(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const input = groupFromResource(body);
    return this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      this.keepName(row, `${input.slug}:${input.role}`);
      if (input.externalId !== row.external_id) {
        await em.getRepository(ScimGroup).update(id, { externalId: input.externalId });
      }
      // A PUT without `members` leaves them as they are (some clients rename with a bare PUT).
      if (input.members) await this.setMembers(em, row, input.members, tokenId);
      return this.resource(em, id);
    });
  }

  async patch(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const operations = parsePatchBody(body);
    return this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      const current = (await this.memberList(em, row)).map((m) => m.id);
      const displayName = `${row.slug}:${row.role}`;
      const next = applyGroupPatch(
        { displayName, externalId: row.external_id, members: current },
        operations,
      );
      this.keepName(row, next.displayName);
      if (next.externalId !== row.external_id) {
        await em.getRepository(ScimGroup).update(id, { externalId: next.externalId });
      }
      await this.setMembers(em, row, next.members, tokenId, current);
      return this.resource(em, id);
    });
  }

  /** Unlinks the group; the memberships it granted stay (remove the members first to revoke access). */
  async delete(id: string, tokenId: string, ifMatch?: string): Promise<void> {
    await this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      await em.getRepository(ScimGroup).delete(id);
      await this.audit.record(em, null, {
        action: 'scim.group_deleted',
        resourceType: 'scim_group',
        resourceId: id,
        spaceId: row.space_id,
        details: { scim_token_id: tokenId, display_name: `${row.slug}:${row.role}` },
      });
    });
  }

  private keepName(row: LoadedGroup, displayName: string): void {
    const wanted = parseGroupName(displayName);
    if (wanted.slug !== row.slug || wanted.role !== row.role) {
      throw new ScimError(
        400,
        'A group is one space and role: its displayName cannot change (create another group instead).',
        'mutability',
      );
    }
  }

  /** Makes the group's members exactly `wanted` (user ids). */
  private async setMembers(
    em: EntityManager,
    row: LoadedGroup,
    wanted: string[],
    tokenId: string,
    current?: string[],
  ): Promise<void> {
    const have = new Set(current ?? (await this.memberList(em, row)).map((m) => m.id));
    const want = new Set(wanted);
    const adds = [...want].filter((id) => !have.has(id));
    const removes = [...have].filter((id) => !want.has(id));
    if (!adds.length && !removes.length) return;
    const bad = adds.filter((id) => !isUuid(id));
    const known = new Set((await this.users.findByIds(adds.filter(isUuid), em)).map((u) => u.id));
    const unknown = [...bad, ...adds.filter((id) => isUuid(id) && !known.has(id))];
    if (unknown.length) {
      throw new ScimError(400, `No user with id ${unknown.join(', ')}.`, 'invalidValue');
    }
    const role = row.role as 'admin' | 'editor' | 'viewer';
    // Adds first, so that swapping admins never leaves the space without one.
    for (const userId of adds) await this.members.setRole(em, null, row.space_id, userId, role);
    for (const userId of removes) await this.members.removeMembership(em, null, row.space_id, userId);
    await em.query(`UPDATE scim_groups SET updated_at = now() WHERE id = $1`, [row.id]);
    await this.audit.record(em, null, {
      action: 'scim.group_members_changed',
      resourceType: 'scim_group',
      resourceId: row.id,
      spaceId: row.space_id,
      details: { scim_token_id: tokenId, added: adds, removed: removes, role },
    });
  }

  private async memberList(em: EntityManager, row: LoadedGroup): Promise<{ id: string; email: string }[]> {
    const ids = (await this.members.membersOf(em, row.space_id))
      .filter((m) => m.role === row.role)
      .map((m) => m.userId);
    const users = await this.users.findByIds(ids, em);
    return users.map((u) => ({ id: u.id, email: u.email })).sort((a, b) => a.email.localeCompare(b.email));
  }

  private async resource(em: EntityManager, id: string) {
    const row = await this.load(em, id, false);
    return toScimGroup(row, await this.memberList(em, row), this.base);
  }

  private async load(em: EntityManager, id: string, lock: boolean, ifMatch?: string): Promise<LoadedGroup> {
    if (!isUuid(id)) throw new ScimError(404, `No group with id ${id}.`);
    const [row] = (await em.query(
      `SELECT g.id, g.space_id, s.slug, g.role, g.external_id, g.created_at, g.updated_at
         FROM scim_groups g JOIN spaces s ON s.id = g.space_id WHERE g.id = $1${lock ? ' FOR UPDATE OF g' : ''}`,
      [id],
    )) as LoadedGroup[];
    if (!row) throw new ScimError(404, `No group with id ${id}.`);
    if (ifMatch && ifMatch !== '*' && ifMatch !== versionOf(row.updated_at)) {
      throw new ScimError(412, 'The group has changed since that version (If-Match).');
    }
    return row;
  }
}
