import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceRoleName } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { MembersService } from '../spaces/members.service';
import { SpacesService } from '../spaces/spaces.service';
import {
  CreateScimGroupMappingDto,
  ListScimGroupMappingsQuery,
  ScimGroupMappingResponse,
  UpdateScimGroupMappingDto,
} from './dto/scim-group-mapping.dto';
import { ScimGroupRoleMapping } from './entities/scim-group-role-mapping.entity';
import { ScimGroup } from './entities/scim-group.entity';
import { GroupMembersQueries } from './scim-group-members.queries';
import { MappingRow, ScimGroupMappingsQueries } from './scim-group-mappings.queries';

const toResponse = (row: MappingRow): ScimGroupMappingResponse => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/**
 * Which space roles a SCIM group grants. Creating, changing or deleting a
 * mapping recomputes the effective role of the group's members in that
 * space, in one statement whatever the size of the group.
 */
@Injectable()
export class ScimGroupMappingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly spaces: SpacesService,
    private readonly members: MembersService,
    private readonly groupMembers: GroupMembersQueries,
    private readonly audit: AuditService,
    private readonly queries: ScimGroupMappingsQueries,
  ) {}

  async list(_actor: Actor, query: ListScimGroupMappingsQuery): Promise<Page<ScimGroupMappingResponse>> {
    // No transaction: the page is read on the DataSource's manager.
    const { rows, total } = await this.queries.page(
      this.dataSource.manager,
      { groupId: query.group_id, spaceSlug: query.space },
      query.skip ?? 0,
      query.limit ?? 50,
    );
    return { items: rows.map(toResponse), total };
  }

  async create(actor: Actor, dto: CreateScimGroupMappingDto): Promise<ScimGroupMappingResponse> {
    return this.tx.run(async (em) => {
      if (!(await em.getRepository(ScimGroup).existsBy({ id: dto.group_id }))) {
        throw ValidationFailed.field('group_id', 'group_id does not name a SCIM group.');
      }
      const [space] = await this.spaces.summaries(em, { slugs: [dto.space] });
      if (!space) throw ValidationFailed.field('space', 'space does not name a space.');
      const repo = em.getRepository(ScimGroupRoleMapping);
      if (await repo.existsBy({ groupId: dto.group_id, spaceId: space.id })) {
        throw new Conflict(
          'The group is already mapped to a role in this space: change that mapping instead.',
          'mapping_exists',
        );
      }
      const mapping = await repo.save(
        repo.create({
          groupId: dto.group_id,
          spaceId: space.id,
          role: dto.role as SpaceRoleName,
          createdBy: actor.userId,
        }),
      );
      await this.settle(em, actor, mapping, 'scim.group_mapping_created');
      return this.get(em, mapping.id);
    });
  }

  async update(actor: Actor, id: string, dto: UpdateScimGroupMappingDto): Promise<ScimGroupMappingResponse> {
    return this.tx.run(async (em) => {
      const mapping = await this.require(em, id);
      if (mapping.role !== dto.role) {
        const previous = mapping.role;
        mapping.role = dto.role as SpaceRoleName;
        await em.getRepository(ScimGroupRoleMapping).save(mapping);
        await this.settle(em, actor, mapping, 'scim.group_mapping_changed', { previous_role: previous });
      }
      return this.get(em, id);
    });
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const mapping = await this.require(em, id);
      await em.getRepository(ScimGroupRoleMapping).delete(id);
      await this.settle(em, actor, mapping, 'scim.group_mapping_deleted');
    });
  }

  /** Recomputes the roles of the group's members in the space, and audits the mapping change. */
  private async settle(
    em: EntityManager,
    actor: Actor,
    mapping: ScimGroupRoleMapping,
    action: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const userIds = await this.groupMembers.memberIds(em, mapping.groupId);
    const changes = await this.members.recomputeRoles(em, actor, mapping.spaceId, {
      userIds,
      details: { scim_group_id: mapping.groupId, reason: action },
    });
    await this.audit.record(em, actor, {
      action,
      resourceType: 'scim_group_mapping',
      resourceId: mapping.id,
      spaceId: mapping.spaceId,
      details: {
        group_id: mapping.groupId,
        role: mapping.role,
        memberships_changed: changes.length,
        ...extra,
      },
    });
  }

  private async require(em: EntityManager, id: string): Promise<ScimGroupRoleMapping> {
    const mapping = await em
      .getRepository(ScimGroupRoleMapping)
      .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!mapping) throw new NotFound('scim group mapping', id);
    return mapping;
  }

  private async get(em: EntityManager, id: string): Promise<ScimGroupMappingResponse> {
    const row = await this.queries.one(em, id);
    return toResponse(row!);
  }
}
