import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { violatedConstraint } from '../../common/errors/postgres-error.mapper';
import type { Page } from '../../common/http/page.dto';
import { SpaceAccess, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { likePattern } from '../../common/text/like-pattern';
import { RequestTransactions } from '../../database/request-transaction';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { MetadataConfigService } from '../metadata-config/metadata-config.service';
import { ProductNameTaken } from './catalog.errors';
import { CreateProductDto, ListProductsQuery, UpdateProductDto } from './dto/product-requests.dto';
import { ProductResponse } from './dto/product-responses.dto';
import { jsonValue } from '../../database/json-column';
import { DatasetIdentity } from './entities/dataset-identity.entity';
import { GovernanceRole, ProductRole } from './entities/product-role.entity';
import { Product, ProductType } from './entities/product.entity';
import { ProductFilters, ProductQueries } from './products.queries';

/** The unique index on a space's product names (case-insensitive). */
const NAME_KEY = 'products_space_name_key';

/** What a connector sync knows of a table. */
export interface DatasetInput {
  name: string;
  description?: string | null;
  /** Merged into the product's attributes (e.g. `{schema: {...}}`). */
  attributes: Record<string, unknown>;
  /** The dataset's OpenLineage identity, recorded for the product when given (see DatasetIdentity). */
  identity?: { namespace: string; name: string };
}

/** A column as `attributes.schema.columns` holds it. */
export interface DatasetColumn {
  name: string;
  type: string | null;
  nullable?: boolean;
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly metadata: MetadataConfigService,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly queries: ProductQueries,
  ) {}

  // Routes.

  async create(actor: Actor, access: SpaceAccess, dto: CreateProductDto): Promise<ProductResponse> {
    const spaceId = access.space.id;
    const em = this.dataSource.manager;
    // Every invalid reference is reported in one 422. Checked before the write, as the transaction
    // would have (each statement reads committed rows); the foreign keys still guard the references.
    const errors: FieldError[] = [];
    const ids = await this.metadata.resolveForProduct(em, spaceId, dto, {}, errors);
    await this.checkMembers(em, spaceId, dto.owner_ids, 'owner_ids', errors);
    await this.checkMembers(em, spaceId, dto.steward_ids, 'steward_ids', errors);
    if (errors.length) throw new ValidationFailed(errors);
    const id = randomUUID();
    const productType = (dto.product_type ?? 'dataset') as ProductType;
    const ownerIds = [...new Set(dto.owner_ids)];
    const stewardIds = [...new Set(dto.steward_ids)];
    // A pending Idempotency-Key claim goes into the same statement (no commit of its own).
    const claim = RequestTransactions.inline(actor, 20);
    const { product, claimed } = await this.queries
      .insertProduct(
        {
          id,
          spaceId,
          name: dto.name,
          description: dto.description ?? null,
          productType,
          domain: dto.domain ?? null,
          tags: dto.tags ?? [],
          criticalityId: ids.criticalityId ?? null,
          sensitivityId: ids.sensitivityId ?? null,
          maintenanceStatusId: ids.maintenanceStatusId ?? null,
          slaFreshnessMinutes: dto.sla_freshness_minutes ?? null,
          attributes: dto.attributes ?? {},
          loggingEventTypes: dto.logging_event_types ?? [],
          loggingLastReviewed: dto.logging_last_reviewed ?? null,
          loggingNotes: dto.logging_notes ?? null,
          createdBy: actor.userId,
        },
        [
          ...ownerIds.map((userId) => ({ user_id: userId, role: 'owner' as const })),
          ...stewardIds.map((userId) => ({ user_id: userId, role: 'steward' as const })),
        ],
        this.outbox.row({
          type: 'product.created',
          spaceId,
          actorId: actor.userId,
          data: {
            product_id: id,
            space_id: spaceId,
            name: dto.name,
            product_type: productType,
            owner_ids: ownerIds,
            steward_ids: stewardIds,
          },
        }),
        claim,
      )
      .catch((error: unknown) => {
        throw violatedConstraint(error)?.constraint === NAME_KEY ? new ProductNameTaken(dto.name) : error;
      });
    // Settling throws the claim's refusal when another request holds the key.
    await claim?.settle(claimed);
    this.outbox.written(null);
    return product!;
  }

  async list(_actor: Actor, access: SpaceAccess, query: ListProductsQuery): Promise<Page<ProductResponse>> {
    const spaceId = access.space.id;
    const em = this.dataSource.manager;
    const filters: ProductFilters = {
      pattern: query.q ? likePattern(query.q) : undefined,
      tag: query.tag,
      ownerId: query.owner_id,
      productType: query.product_type,
    };
    if (query.criticality) {
      filters.criticalityIds = await this.metadata.idsNamed(spaceId, 'criticality-levels', query.criticality);
      if (!filters.criticalityIds.length) return { items: [], total: 0 };
    }
    const { items, total } = await this.queries.page(
      em,
      spaceId,
      filters,
      query.skip ?? 0,
      query.limit ?? 50,
    );
    // Unfiltered, the total is the space's product counter rather than a count over all its rows.
    return { items, total: total ?? (await this.productCount(em, spaceId)) };
  }

  async get(_actor: Actor, access: SpaceAccess, productId: string): Promise<ProductResponse> {
    const product = await this.queries.get(access.space.id, productId);
    if (!product) throw new NotFound('product', productId);
    return product;
  }

  async update(
    actor: Actor,
    access: SpaceAccess,
    productId: string,
    dto: UpdateProductDto,
  ): Promise<ProductResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const product = await em
        .getRepository(Product)
        .findOne({ where: { id: productId, spaceId }, lock: { mode: 'pessimistic_write' } });
      if (!product) throw new NotFound('product', productId);
      const changed: string[] = [];
      // The changed columns alone: an UPDATE of them, not save()'s read of the row to diff it again.
      const patch: Partial<Product> = {};
      if (dto.name !== undefined && dto.name !== product.name) {
        if (dto.name.toLowerCase() !== product.name.toLowerCase()) {
          await this.assertNameFree(em, spaceId, dto.name, product.id);
        }
        patch.name = dto.name;
        changed.push('name');
      }
      const errors: FieldError[] = [];
      const ids = await this.metadata.resolveForProduct(em, spaceId, dto, product, errors);
      await this.checkMembers(em, spaceId, dto.owner_ids, 'owner_ids', errors);
      await this.checkMembers(em, spaceId, dto.steward_ids, 'steward_ids', errors);
      if (errors.length) throw new ValidationFailed(errors);

      const assign = <K extends keyof Product>(key: K, value: Product[K] | undefined, field: string) => {
        if (value === undefined) return;
        const same = JSON.stringify(product[key]) === JSON.stringify(value);
        if (same) return;
        patch[key] = value;
        changed.push(field);
      };
      assign('description', dto.description, 'description');
      assign('productType', dto.product_type as ProductType | undefined, 'product_type');
      assign('domain', dto.domain, 'domain');
      assign('tags', dto.tags, 'tags');
      assign('criticalityId', ids.criticalityId, 'criticality');
      assign('sensitivityId', ids.sensitivityId, 'sensitivity');
      assign('maintenanceStatusId', ids.maintenanceStatusId, 'maintenance_status');
      assign('slaFreshnessMinutes', dto.sla_freshness_minutes, 'sla_freshness_minutes');
      assign('attributes', dto.attributes, 'attributes');
      assign('loggingEventTypes', dto.logging_event_types, 'logging_event_types');
      assign('loggingLastReviewed', dto.logging_last_reviewed, 'logging_last_reviewed');
      assign('loggingNotes', dto.logging_notes, 'logging_notes');
      if (dto.owner_ids && (await this.setRoles(em, product.id, 'owner', dto.owner_ids)))
        changed.push('owners');
      if (dto.steward_ids && (await this.setRoles(em, product.id, 'steward', dto.steward_ids))) {
        changed.push('stewards');
      }
      if (changed.length) {
        const { attributes, ...columns } = patch;
        await em.getRepository(Product).update(product.id, {
          ...columns,
          ...(attributes && { attributes: jsonValue(attributes) }),
          updatedAt: new Date(),
        });
      }
      const response = await this.load(em, spaceId, product.id);
      if (changed.length) {
        await this.outbox.append(em, {
          type: 'product.updated',
          spaceId,
          actorId: actor.userId,
          data: { ...eventData(response), changed },
        });
      }
      return response;
    });
  }

  async delete(actor: Actor, access: SpaceAccess, productId: string): Promise<void> {
    const spaceId = access.space.id;
    await this.tx.run(async (em) => {
      const product = await em
        .getRepository(Product)
        .findOne({ where: { id: productId, spaceId }, lock: { mode: 'pessimistic_write' } });
      if (!product) throw new NotFound('product', productId);
      // Governance roles, lineage edges and access requests go with it (foreign keys cascade).
      await em.getRepository(Product).delete(product.id);
      await this.outbox.append(em, {
        type: 'product.deleted',
        spaceId,
        actorId: actor.userId,
        data: { product_id: product.id, space_id: spaceId, name: product.name },
      });
      await this.audit.record(em, actor, {
        action: 'product.deleted',
        resourceType: 'product',
        resourceId: product.id,
        spaceId,
        details: { name: product.name },
      });
      // Last, as in create.
      await this.queries.countProducts(em, spaceId, -1);
    });
  }

  // Writes for other modules (permissions import, connector sync), in the caller's transaction.
  // Their reads are ProductDirectoryService's.

  /** Grants (true) or withdraws (false) a governance role; answers whether anything changed. */
  async setGovernanceRole(
    em: EntityManager,
    productId: string,
    userId: string,
    role: GovernanceRole,
    granted: boolean,
  ): Promise<boolean> {
    if (granted) {
      return this.queries.grantRole(em, productId, userId, role);
    }
    const result = await em.getRepository(ProductRole).delete({ productId, userId, role });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Connector sync: creates a `dataset` product named after the table, or
   * updates the product of that name (description when given, attributes
   * merged). Runs in the caller's transaction.
   */
  async upsertDataset(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    input: DatasetInput,
  ): Promise<{ product: ProductResponse; created: boolean }> {
    const result = await this.upsertDatasetProduct(em, actor, spaceId, input);
    if (input.identity) {
      await em
        .getRepository(DatasetIdentity)
        .upsert({ spaceId, ...input.identity, productId: result.product.id }, [
          'spaceId',
          'namespace',
          'name',
        ]);
    }
    return result;
  }

  /**
   * OpenLineage `schema` facets: sets the columns of `attributes.schema`
   * (its other members kept) as observed at `observedAt`; a schema observed
   * before the recorded columns last changed is stale and changes nothing
   * (events may arrive out of order). Answers the columns held before (null when none) and
   * whether they changed; nothing is written when they did not.
   */
  async setDatasetColumns(
    em: EntityManager,
    actorId: string | null,
    spaceId: string,
    productId: string,
    columns: DatasetColumn[],
    observedAt: Date,
  ): Promise<{ previous: DatasetColumn[] | null; changed: boolean }> {
    const repo = em.getRepository(Product);
    const product = await repo.findOne({
      select: { id: true, attributes: true },
      where: { id: productId, spaceId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!product) throw new NotFound('product', productId);
    const schema = (product.attributes.schema ?? {}) as { columns?: DatasetColumn[]; observed_at?: string };
    const previous = Array.isArray(schema.columns) ? schema.columns : null;
    if (schema.observed_at && Date.parse(schema.observed_at) > observedAt.getTime()) {
      return { previous, changed: false };
    }
    const same =
      previous !== null &&
      previous.length === columns.length &&
      previous.every(
        (column, i) => column.name === columns[i].name && (column.type ?? null) === columns[i].type,
      );
    // The same columns again (every run of a job) write nothing: `observed_at` is when they last changed.
    if (same) return { previous, changed: false };
    const observed = { ...schema, observed_at: observedAt.toISOString() };
    await repo.update(
      { id: productId },
      {
        attributes: jsonValue({ ...product.attributes, schema: { ...observed, columns } }),
        updatedAt: new Date(),
      },
    );
    const updated = await this.load(em, spaceId, productId);
    await this.outbox.append(em, {
      type: 'product.updated',
      spaceId,
      actorId,
      data: { ...eventData(updated), changed: ['attributes'] },
    });
    return { previous, changed: true };
  }

  private async upsertDatasetProduct(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    input: DatasetInput,
  ): Promise<{ product: ProductResponse; created: boolean }> {
    const repo = em.getRepository(Product);
    const existing = await repo
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId AND lower(p.name) = lower(:name)', { spaceId, name: input.name })
      .setLock('pessimistic_write')
      .getOne();
    const actorId = actor?.userId ?? null;
    if (existing) {
      existing.attributes = { ...existing.attributes, ...input.attributes };
      if (input.description !== undefined) existing.description = input.description;
      existing.updatedAt = new Date();
      await repo.save(existing);
      const product = await this.load(em, spaceId, existing.id);
      await this.outbox.append(em, {
        type: 'product.updated',
        spaceId,
        actorId,
        data: { ...eventData(product), changed: ['attributes'] },
      });
      return { product, created: false };
    }
    const saved = await repo.save(
      repo.create({
        spaceId,
        name: input.name,
        description: input.description ?? null,
        productType: 'dataset',
        attributes: input.attributes,
        createdBy: actorId,
      }),
    );
    const product = await this.load(em, spaceId, saved.id);
    await this.outbox.append(em, { type: 'product.created', spaceId, actorId, data: eventData(product) });
    await this.queries.countProducts(em, spaceId, +1);
    return { product, created: true };
  }

  // Internals.

  private async load(em: EntityManager, spaceId: string, productId: string): Promise<ProductResponse> {
    const product = await this.queries.one(em, spaceId, productId);
    if (!product) throw new NotFound('product', productId);
    return product;
  }

  private async assertNameFree(em: EntityManager, spaceId: string, name: string, exceptId?: string) {
    const qb = em
      .getRepository(Product)
      .createQueryBuilder('p')
      .where('p.spaceId = :spaceId AND lower(p.name) = lower(:name)', { spaceId, name });
    if (exceptId) qb.andWhere('p.id <> :exceptId', { exceptId });
    if (await qb.getExists()) throw new ProductNameTaken(name);
  }

  private async checkMembers(
    em: EntityManager,
    spaceId: string,
    userIds: string[] | undefined,
    field: string,
    errors: FieldError[],
  ): Promise<void> {
    if (!userIds?.length) return;
    const members = await this.access.membersAmong(em, spaceId, userIds);
    const strangers = userIds.filter((id) => !members.has(id));
    if (strangers.length) {
      errors.push({
        field,
        message: `${field} must name members of the space; not members: ${strangers.join(', ')}.`,
      });
    }
  }

  /** Replaces the holders of one role; answers whether anything changed. */
  private async setRoles(em: EntityManager, productId: string, role: GovernanceRole, userIds: string[]) {
    const repo = em.getRepository(ProductRole);
    const current = new Set((await repo.findBy({ productId, role })).map((r) => r.userId));
    const wanted = new Set(userIds);
    const gone = [...current].filter((id) => !wanted.has(id));
    const added = [...wanted].filter((id) => !current.has(id));
    if (gone.length) {
      await repo
        .createQueryBuilder()
        .delete()
        .where('product_id = :productId AND role = :role AND user_id = ANY(:gone)', { productId, role, gone })
        .execute();
    }
    if (added.length) await repo.insert(added.map((userId) => ({ productId, userId, role })));
    return gone.length > 0 || added.length > 0;
  }

  private async productCount(em: EntityManager, spaceId: string): Promise<number> {
    return (await this.queries.counterTotal(em, spaceId)) ?? em.getRepository(Product).countBy({ spaceId });
  }
}

function eventData(product: ProductResponse) {
  return {
    product_id: product.id,
    space_id: product.space_id,
    name: product.name,
    product_type: product.product_type,
    owner_ids: product.owners.map((o) => o.id),
    steward_ids: product.stewards.map((s) => s.id),
  };
}
