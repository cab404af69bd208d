import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { Collection, COLLECTION_SPECS, CollectionSpec, DEFAULT_COLOR, snakeSlug } from './collections';
import {
  CreateLevelDto,
  CreateStatusDto,
  UpdateLevelDto,
  UpdateStatusDto,
} from './dto/metadata-requests.dto';
import { LevelResponse, SpaceConfigResponse, StatusResponse } from './dto/metadata-responses.dto';
import type { CriticalityLevel } from './entities/criticality-level.entity';
import type { MaintenanceStatus } from './entities/maintenance-status.entity';
import type { MetadataValue } from './entities/metadata-value.base';
import { toLevelResponse, toStatusResponse, toValueResponse } from './metadata-config.mapper';
import { MetadataConfigQueries } from './metadata-config.queries';

type CreateDto = CreateLevelDto & CreateStatusDto;
type UpdateDto = UpdateLevelDto & UpdateStatusDto;
type ValueResponse = LevelResponse | StatusResponse;

/** The product fields that name a metadata value, and how. */
export interface ProductMetadataInput {
  /** A criticality level name; null clears it. */
  criticality?: string | null;
  /** A sensitivity level name; null clears it. */
  sensitivity?: string | null;
  /** A maintenance status slug; null clears it. */
  maintenance_status?: string | null;
}

export interface ProductMetadataIds {
  criticalityId?: string | null;
  sensitivityId?: string | null;
  maintenanceStatusId?: string | null;
}

const PRODUCT_FIELDS = [
  { field: 'criticality', collection: 'criticality-levels', id: 'criticalityId', by: 'name' },
  { field: 'sensitivity', collection: 'sensitivity-levels', id: 'sensitivityId', by: 'name' },
  { field: 'maintenance_status', collection: 'maintenance-statuses', id: 'maintenanceStatusId', by: 'slug' },
] as const;

@Injectable()
export class MetadataConfigService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly queries: MetadataConfigQueries,
  ) {}

  async list(_actor: Actor, access: SpaceAccess, collection: Collection): Promise<ValueResponse[]> {
    const spec = COLLECTION_SPECS[collection];
    return (await this.live(this.dataSource.manager, spec, access.space.id)).map((value) =>
      toValueResponse(value, spec.hasSlug),
    );
  }

  async overview(_actor: Actor, access: SpaceAccess): Promise<SpaceConfigResponse> {
    const em = this.dataSource.manager;
    const spaceId = access.space.id;
    const [criticality, sensitivity, statuses] = [
      await this.live(em, COLLECTION_SPECS['criticality-levels'], spaceId),
      await this.live(em, COLLECTION_SPECS['sensitivity-levels'], spaceId),
      await this.live(em, COLLECTION_SPECS['maintenance-statuses'], spaceId),
    ];
    return {
      criticality_levels: criticality.map((v) => toLevelResponse(v as CriticalityLevel)),
      sensitivity_levels: sensitivity.map((v) => toLevelResponse(v as CriticalityLevel)),
      maintenance_statuses: statuses.map((v) => toStatusResponse(v as MaintenanceStatus)),
    };
  }

  async create(
    actor: Actor,
    access: SpaceAccess,
    collection: Collection,
    dto: CreateDto,
  ): Promise<ValueResponse> {
    const spec = COLLECTION_SPECS[collection];
    return this.tx.run(async (em) => {
      const spaceId = access.space.id;
      await this.lockCollection(em, spec, spaceId);
      const slug = spec.hasSlug ? (dto.slug ?? snakeSlug(dto.name)) : undefined;
      const live = await this.live(em, spec, spaceId);
      this.assertFree(spec, live, dto.name, slug);
      const repo = em.getRepository(spec.entity);
      const value = repo.create({
        spaceId,
        name: dto.name,
        color: dto.color ?? DEFAULT_COLOR,
        sortOrder: dto.sort_order ?? nextSortOrder(live),
        ...(spec.hasSlug ? { slug } : { description: dto.description ?? null }),
      } as Partial<MetadataValue>);
      await repo.save(value);
      await this.changed(em, actor, spaceId, collection, 'created', [value.id]);
      return toValueResponse(value, spec.hasSlug);
    });
  }

  async update(
    actor: Actor,
    access: SpaceAccess,
    collection: Collection,
    id: string,
    dto: UpdateDto,
  ): Promise<ValueResponse> {
    const spec = COLLECTION_SPECS[collection];
    return this.tx.run(async (em) => {
      const spaceId = access.space.id;
      await this.lockCollection(em, spec, spaceId);
      const value = await this.requireLive(em, spec, spaceId, id);
      const record = value as MetadataValue & { slug?: string; description?: string | null };
      const renamed = dto.name !== undefined && dto.name !== value.name ? dto.name : undefined;
      const reslugged =
        spec.hasSlug && dto.slug !== undefined && dto.slug !== record.slug ? dto.slug : undefined;
      if (renamed !== undefined || reslugged !== undefined) {
        this.assertFree(spec, await this.live(em, spec, spaceId), renamed, reslugged, value.id);
      }
      if (dto.name !== undefined) value.name = dto.name;
      if (dto.color !== undefined) value.color = dto.color;
      if (dto.sort_order !== undefined) value.sortOrder = dto.sort_order;
      if (spec.hasSlug && dto.slug !== undefined) record.slug = dto.slug;
      if (!spec.hasSlug && dto.description !== undefined) record.description = dto.description;
      await em.getRepository(spec.entity).save(value);
      await this.changed(em, actor, spaceId, collection, 'updated', [value.id]);
      return toValueResponse(value, spec.hasSlug);
    });
  }

  /** Soft delete: the value leaves the lists and cannot be chosen anew, but stays on products that carry it. */
  async remove(actor: Actor, access: SpaceAccess, collection: Collection, id: string): Promise<void> {
    const spec = COLLECTION_SPECS[collection];
    await this.tx.run(async (em) => {
      const spaceId = access.space.id;
      const value = await this.requireLive(em, spec, spaceId, id);
      await em.getRepository(spec.entity).update(value.id, { deletedAt: new Date() });
      await this.changed(em, actor, spaceId, collection, 'deleted', [value.id]);
      await this.audit.record(em, actor, {
        action: 'metadata_config.value_deleted',
        resourceType: collection,
        resourceId: value.id,
        spaceId,
        details: { name: value.name },
      });
    });
  }

  /** Creates the standard defaults whose name (or slug) no live value has yet; answers the live list. */
  async seed(actor: Actor, access: SpaceAccess, collection: Collection): Promise<ValueResponse[]> {
    const spec = COLLECTION_SPECS[collection];
    return this.tx.run(async (em) => {
      const spaceId = access.space.id;
      await this.lockCollection(em, spec, spaceId);
      const existing = await this.live(em, spec, spaceId);
      const names = new Set(existing.map((v) => v.name.toLowerCase()));
      const slugs = new Set(existing.map((v) => (v as MaintenanceStatus).slug));
      let sortOrder = nextSortOrder(existing);
      const repo = em.getRepository(spec.entity);
      const created: string[] = [];
      for (const standard of spec.defaults) {
        if (names.has(standard.name.toLowerCase()) || (standard.slug && slugs.has(standard.slug))) continue;
        const value = repo.create({
          spaceId,
          name: standard.name,
          color: standard.color,
          sortOrder: sortOrder++,
          ...(spec.hasSlug ? { slug: standard.slug } : { description: standard.description ?? null }),
        } as Partial<MetadataValue>);
        await repo.save(value);
        created.push(value.id);
      }
      if (created.length) await this.changed(em, actor, spaceId, collection, 'seeded', created);
      return (await this.live(em, spec, spaceId)).map((value) => toValueResponse(value, spec.hasSlug));
    });
  }

  // For the catalog.

  /**
   * Turns the product's metadata names into value ids. Only live values can
   * be chosen; a soft-deleted value is accepted only when the product
   * already carries it (`current`), so resending an unchanged form works.
   * Every field that names nothing is reported in one 422; with `errors`
   * given, they are added there for the caller to report instead.
   */
  async resolveForProduct(
    em: EntityManager,
    spaceId: string,
    input: ProductMetadataInput,
    current: ProductMetadataIds = {},
    errors?: FieldError[],
  ): Promise<ProductMetadataIds> {
    const resolved: ProductMetadataIds = {};
    const problems: FieldError[] = errors ?? [];
    for (const { field, collection, id, by } of PRODUCT_FIELDS) {
      const given = input[field];
      if (given === undefined) continue;
      if (given === null) {
        resolved[id] = null;
        continue;
      }
      const spec = COLLECTION_SPECS[collection];
      const matches = await em
        .getRepository(spec.entity)
        .createQueryBuilder('v')
        .select(['v.id', 'v.deletedAt'])
        .where('v.spaceId = :spaceId', { spaceId })
        .andWhere(by === 'slug' ? 'v.slug = :given' : 'lower(v.name) = lower(:given)', { given })
        .getMany();
      const live = matches.find((v) => !v.deletedAt);
      const kept = matches.find((v) => v.id === current[id]);
      if (live) resolved[id] = live.id;
      else if (kept) resolved[id] = kept.id;
      else {
        problems.push({
          field,
          message: `${field} must name a ${spec.label} configured in the space (${by === 'slug' ? 'its slug' : 'its name'}); "${given}" is not one.`,
        });
      }
    }
    if (!errors && problems.length) throw new ValidationFailed(problems);
    return resolved;
  }

  /** Ids of the values of a collection with this name (deleted ones too), for list filters. */
  async idsNamed(spaceId: string, collection: Collection, name: string): Promise<string[]> {
    const spec = COLLECTION_SPECS[collection];
    const column = spec.hasSlug ? 'v.slug = :name' : 'lower(v.name) = lower(:name)';
    const rows = await this.dataSource
      .getRepository(spec.entity)
      .createQueryBuilder('v')
      .select('v.id')
      .where('v.spaceId = :spaceId', { spaceId })
      .andWhere(column, { name })
      .getMany();
    return rows.map((row) => row.id);
  }

  private live(em: EntityManager, spec: CollectionSpec, spaceId: string): Promise<MetadataValue[]> {
    return em.getRepository(spec.entity).find({
      where: { spaceId, deletedAt: IsNull() },
      order: { sortOrder: 'ASC', name: 'ASC' },
    });
  }

  private async requireLive(
    em: EntityManager,
    spec: CollectionSpec,
    spaceId: string,
    id: string,
  ): Promise<MetadataValue> {
    const value = await em.getRepository(spec.entity).findOne({
      where: { id, spaceId, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
    if (!value) throw new NotFound(spec.label, id);
    return value;
  }

  /** 409 when another live value has this name (case-insensitively) or slug. */
  private assertFree(
    spec: CollectionSpec,
    live: MetadataValue[],
    name: string | undefined,
    slug: string | undefined,
    exceptId?: string,
  ): void {
    const others = live.filter((v) => v.id !== exceptId);
    if (name !== undefined && others.some((v) => v.name.toLowerCase() === name.toLowerCase())) {
      throw new Conflict(`A ${spec.label} named "${name}" already exists in this space.`, 'duplicate_name');
    }
    if (slug !== undefined && others.some((v) => (v as MaintenanceStatus).slug === slug)) {
      throw new Conflict(
        `A ${spec.label} with the slug "${slug}" already exists in this space.`,
        'duplicate_slug',
      );
    }
  }

  // Writes to one collection of one space are serialised, so the case-insensitive name rule holds under races.
  private async lockCollection(em: EntityManager, spec: CollectionSpec, spaceId: string): Promise<void> {
    const table = em.getRepository(spec.entity).metadata.tableName;
    await this.queries.lockCollection(em, table, spaceId);
  }

  private async changed(
    em: EntityManager,
    actor: Actor,
    spaceId: string,
    collection: Collection,
    action: 'created' | 'updated' | 'deleted' | 'seeded',
    itemIds: string[],
  ): Promise<void> {
    await this.outbox.append(em, {
      type: 'metadata_config.changed',
      spaceId,
      actorId: actor.userId,
      data: { space_id: spaceId, collection, action, item_ids: itemIds },
    });
  }
}

/** After the last live value. */
function nextSortOrder(live: MetadataValue[]): number {
  return live.reduce((next, v) => Math.max(next, v.sortOrder + 1), 0);
}
