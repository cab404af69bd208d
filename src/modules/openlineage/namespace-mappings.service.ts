import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { InstanceContext } from '../../database/instance-context';
import { AuditService } from '../../platform/audit/audit.service';
import { NamespaceMappingListResponse, ReplaceNamespaceMappingsDto } from './dto/namespace-mapping.dto';
import { NamespaceMapping } from './entities/namespace-mapping.entity';

export interface MappedSpace {
  spaceId: string;
  createProducts: boolean;
}

/** How long a namespace's spaces are served from memory (docs/decisions.md#openlineage-ingestion). */
const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

/**
 * Which spaces take which OpenLineage namespaces. Every ingestion request
 * asks for its namespaces' spaces, so the answer is cached per instance and
 * namespace for a few seconds; a change made on this process is seen at
 * once, one made on another replica within CACHE_MS.
 */
@Injectable()
export class NamespaceMappingsService {
  private readonly cache = new Map<string, { at: number; spaces: MappedSpace[] }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
  ) {}

  async list(access: SpaceAccess): Promise<NamespaceMappingListResponse> {
    const rows = await this.dataSource.getRepository(NamespaceMapping).find({
      where: { spaceId: access.space.id },
      order: { namespace: 'ASC' },
    });
    return { items: rows.map(toResponse), total: rows.length };
  }

  async replace(
    actor: Actor,
    access: SpaceAccess,
    dto: ReplaceNamespaceMappingsDto,
  ): Promise<NamespaceMappingListResponse> {
    const seen = new Map<string, number>();
    dto.items.forEach((item, index) => {
      const first = seen.get(item.namespace);
      if (first !== undefined) {
        throw ValidationFailed.field(
          `items[${index}].namespace`,
          `items[${index}].namespace repeats items[${first}].namespace.`,
        );
      }
      seen.set(item.namespace, index);
    });
    const spaceId = access.space.id;
    const result = await this.tx.run(async (em) => {
      const repo = em.getRepository(NamespaceMapping);
      await repo.delete({ spaceId });
      if (dto.items.length) {
        await repo.insert(
          dto.items.map((item) => ({
            spaceId,
            namespace: item.namespace,
            createProducts: item.create_products,
            createdBy: actor.userId,
          })),
        );
      }
      await this.audit.record(em, actor, {
        action: 'openlineage.namespaces_replaced',
        resourceType: 'space',
        resourceId: spaceId,
        spaceId,
      });
      const rows = await repo.find({ where: { spaceId }, order: { namespace: 'ASC' } });
      return { items: rows.map(toResponse), total: rows.length };
    });
    this.cache.clear();
    return result;
  }

  /** The spaces mapping each of these namespaces (a namespace no space maps is absent). */
  async spacesFor(em: EntityManager, namespaces: string[]): Promise<Map<string, MappedSpace[]>> {
    const instance = InstanceContext.instanceId();
    const now = Date.now();
    const found = new Map<string, MappedSpace[]>();
    const missing: string[] = [];
    for (const namespace of namespaces) {
      const cached = this.cache.get(`${instance}\u0000${namespace}`);
      if (cached && now - cached.at < CACHE_MS) {
        if (cached.spaces.length) found.set(namespace, cached.spaces);
      } else missing.push(namespace);
    }
    if (!missing.length) return found;
    const rows = await em.getRepository(NamespaceMapping).find({
      select: { spaceId: true, namespace: true, createProducts: true },
      where: { namespace: In(missing) },
    });
    if (this.cache.size > CACHE_MAX) this.cache.clear();
    for (const namespace of missing) {
      const spaces = rows
        .filter((row) => row.namespace === namespace)
        .map((row) => ({ spaceId: row.spaceId, createProducts: row.createProducts }));
      this.cache.set(`${instance}\u0000${namespace}`, { at: now, spaces });
      if (spaces.length) found.set(namespace, spaces);
    }
    return found;
  }
}

function toResponse(row: NamespaceMapping) {
  return {
    namespace: row.namespace,
    create_products: row.createProducts,
    created_at: row.createdAt.toISOString(),
  };
}
