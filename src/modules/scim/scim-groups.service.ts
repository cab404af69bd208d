import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { MembersService } from '../spaces/members.service';
import { SpacesService } from '../spaces/spaces.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { ScimGroupRoleMapping } from './entities/scim-group-role-mapping.entity';
import { ScimGroup } from './entities/scim-group.entity';
import { GroupMembersQueries, ScimMember } from './scim-group-members.queries';
import { compileFilter, parseFilter } from './scim-filter';
import {
  groupFromResource,
  ListParams,
  pageOf,
  requireDisplayName,
  roleShortcut,
  scimBase,
} from './scim-input';
import { applyGroupPatch, GROUP_SCHEMA, parsePatchBody } from './scim-patch';
import { listResponse, ScimGroupRow, toScimGroup, versionOf } from './scim-resources';
import { ScimError } from './scim.errors';
import { ScimGroupsQueries } from './scim-groups.queries';

/**
 * SCIM Groups as the identity provider sends them: any name, renamable, with
 * members. What a group grants comes from its role mappings
 * (ScimGroupMappingsService); every change of members, mappings or the group
 * itself recomputes the effective roles of the members it touches, in one
 * statement per mapped space.
 */
@Injectable()
export class ScimGroupsService {
  private readonly base: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UserDirectoryService,
    private readonly spaces: SpacesService,
    private readonly members: MembersService,
    private readonly audit: AuditService,
    private readonly groupMembers: GroupMembersQueries,
    private readonly queries: ScimGroupsQueries,
  ) {
    this.base = scimBase(config);
  }

  async list(params: ListParams) {
    const { startIndex, count } = pageOf(params);
    const filter = params.filter
      ? compileFilter(parseFilter(params.filter), this.queries.filterColumns, [GROUP_SCHEMA])
      : undefined;
    // No transaction: the page is read on the DataSource's manager.
    const rows = await this.queries.page(this.dataSource.manager, filter, startIndex - 1, count);
    const total = await this.queries.count(this.dataSource.manager, filter);
    const members = excludesMembers(params.excludedAttributes)
      ? null
      : await this.groupMembers.membersOf(
          this.dataSource.manager,
          rows.map((r) => r.id),
        );
    return listResponse(
      rows.map((row) => toScimGroup(row, members ? (members.get(row.id) ?? []) : null, this.base)),
      total,
      startIndex,
    );
  }

  async get(id: string, excludedAttributes?: string) {
    const row = await this.load(this.dataSource.manager, id, false);
    return this.resource(this.dataSource.manager, row, excludesMembers(excludedAttributes));
  }

  async create(body: unknown, tokenId: string) {
    const input = groupFromResource(body);
    return this.tx.run(async (em) => {
      await this.keepNameFree(em, input.displayName);
      const repo = em.getRepository(ScimGroup);
      const group = await repo.save(
        repo.create({ displayName: input.displayName, externalId: input.externalId }),
      );
      const mapped = await this.mapByName(em, group.id, input.displayName);
      await this.audit.record(em, null, {
        action: 'scim.group_created',
        resourceType: 'scim_group',
        resourceId: group.id,
        spaceId: mapped?.spaceId ?? null,
        details: {
          scim_token_id: tokenId,
          display_name: input.displayName,
          ...(mapped ? { mapped: { space_id: mapped.spaceId, role: mapped.role } } : {}),
        },
      });
      if (input.members?.length) await this.setMembers(em, group.id, input.members, tokenId, []);
      return this.resource(em, await this.load(em, group.id, false));
    });
  }

  async replace(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const input = groupFromResource(body);
    return this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      await this.rename(em, row, input.displayName, input.externalId, tokenId);
      // A PUT without `members` leaves them as they are (some clients rename with a bare PUT).
      if (input.members) await this.setMembers(em, id, input.members, tokenId);
      return this.resource(em, await this.load(em, id, false));
    });
  }

  async patch(id: string, body: unknown, tokenId: string, ifMatch?: string) {
    const operations = parsePatchBody(body);
    return this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      const current = await this.groupMembers.memberIds(em, id);
      const next = applyGroupPatch(
        { displayName: row.display_name, externalId: row.external_id, members: current },
        operations,
      );
      await this.rename(em, row, requireDisplayName(next.displayName), next.externalId, tokenId);
      await this.setMembers(em, id, next.members, tokenId, current);
      return this.resource(em, await this.load(em, id, false));
    });
  }

  /** Deletes the group and revokes what it granted: its members keep only their other grants. */
  async delete(id: string, tokenId: string, ifMatch?: string): Promise<void> {
    await this.tx.run(async (em) => {
      const row = await this.load(em, id, true, ifMatch);
      const mappings = await this.mappingsOf(em, id);
      const memberIds = await this.groupMembers.memberIds(em, id);
      await em.getRepository(ScimGroup).delete(id);
      let revoked = 0;
      for (const mapping of mappings) {
        const changes = await this.members.recomputeRoles(em, null, mapping.spaceId, {
          userIds: memberIds,
          details: { scim_group_id: id, reason: 'scim.group_deleted' },
        });
        revoked += changes.length;
      }
      await this.audit.record(em, null, {
        action: 'scim.group_deleted',
        resourceType: 'scim_group',
        resourceId: id,
        details: {
          scim_token_id: tokenId,
          display_name: row.display_name,
          mappings: mappings.map((m) => ({ space_id: m.spaceId, role: m.role })),
          memberships_changed: revoked,
        },
      });
    });
  }

  private async rename(
    em: EntityManager,
    row: ScimGroupRow,
    displayName: string,
    externalId: string | null,
    tokenId: string,
  ): Promise<void> {
    if (displayName === row.display_name && externalId === row.external_id) return;
    if (displayName.toLowerCase() !== row.display_name.toLowerCase())
      await this.keepNameFree(em, displayName);
    await em.getRepository(ScimGroup).update(row.id, { displayName, externalId });
    if (displayName !== row.display_name) {
      await this.audit.record(em, null, {
        action: 'scim.group_renamed',
        resourceType: 'scim_group',
        resourceId: row.id,
        details: {
          scim_token_id: tokenId,
          display_name: displayName,
          previous_display_name: row.display_name,
        },
      });
    }
  }

  private async keepNameFree(em: EntityManager, displayName: string): Promise<void> {
    if (await this.queries.nameTaken(em, displayName))
      throw new ScimError(409, `A group named ${displayName} already exists.`, 'uniqueness');
  }

  /** The `<space-slug>:<role>` shortcut: maps a new group so named to that role of that space. */
  private async mapByName(em: EntityManager, groupId: string, displayName: string) {
    const shortcut = roleShortcut(displayName);
    if (!shortcut) return null;
    const [space] = await this.spaces.summaries(em, { slugs: [shortcut.slug] });
    if (!space) return null;
    const repo = em.getRepository(ScimGroupRoleMapping);
    return repo.save(repo.create({ groupId, spaceId: space.id, role: shortcut.role, createdBy: null }));
  }

  /** Makes the group's members exactly `wanted` (user ids), then recomputes the roles of those who changed. */
  private async setMembers(
    em: EntityManager,
    groupId: string,
    wanted: string[],
    tokenId: string,
    current?: string[],
  ): Promise<void> {
    const have = new Set(current ?? (await this.groupMembers.memberIds(em, groupId)));
    const want = new Set(wanted);
    const adds = [...want].filter((id) => !have.has(id));
    const removes = [...have].filter((id) => !want.has(id));
    if (!adds.length && !removes.length) return;
    const bad = adds.filter((id) => !isUuid(id));
    const known = new Set((await this.users.findByIds(em, adds.filter(isUuid))).map((u) => u.id));
    const unknown = [...bad, ...adds.filter((id) => isUuid(id) && !known.has(id))];
    if (unknown.length) {
      throw new ScimError(400, `No user with id ${unknown.join(', ')}.`, 'invalidValue');
    }
    await this.groupMembers.add(em, groupId, adds);
    await this.groupMembers.remove(em, groupId, removes);
    await this.queries.touch(em, groupId);
    const mappings = await this.mappingsOf(em, groupId);
    for (const mapping of mappings) {
      await this.members.recomputeRoles(em, null, mapping.spaceId, {
        userIds: [...adds, ...removes],
        details: { scim_group_id: groupId },
      });
    }
    await this.audit.record(em, null, {
      action: 'scim.group_members_changed',
      resourceType: 'scim_group',
      resourceId: groupId,
      details: { scim_token_id: tokenId, added: adds, removed: removes },
    });
  }

  // Spaces are locked in one order by every writer, so two groups sharing spaces cannot deadlock.
  private mappingsOf(em: EntityManager, groupId: string): Promise<ScimGroupRoleMapping[]> {
    return em.getRepository(ScimGroupRoleMapping).find({ where: { groupId }, order: { spaceId: 'ASC' } });
  }

  private async resource(em: EntityManager, row: ScimGroupRow, withoutMembers = false) {
    const members: ScimMember[] | null = withoutMembers
      ? null
      : ((await this.groupMembers.membersOf(em, [row.id])).get(row.id) ?? []);
    return toScimGroup(row, members, this.base);
  }

  private async load(em: EntityManager, id: string, lock: boolean, ifMatch?: string): Promise<ScimGroupRow> {
    if (!isUuid(id)) throw new ScimError(404, `No group with id ${id}.`);
    const row = await this.queries.one(em, id, lock);
    if (!row) throw new ScimError(404, `No group with id ${id}.`);
    if (ifMatch && ifMatch !== '*' && ifMatch !== versionOf(row.updated_at)) {
      throw new ScimError(412, 'The group has changed since that version (If-Match).');
    }
    return row;
  }
}

const excludesMembers = (excludedAttributes?: string) => /\bmembers\b/i.test(excludedAttributes ?? '');
