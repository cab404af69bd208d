import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { composedText } from '../../database/statement-text';
import type { GovernanceRole } from './entities/product-role.entity';
import { PersonRef } from '../../common/http/person-ref.dto';
import { ProductResponse } from './dto/product-responses.dto';

/** Rows a space's product counter is spread over (see ProductCount). */
export const PRODUCT_COUNT_SHARDS = 64;

// The counter upsert ($1 the space; the delta and the shard count as given): see ProductQueries.countProducts.
// In the statement that inserts the product (`created`, a CTE), the first count cannot see it yet: it adds it.
const countProductsSql = (delta: string, shards: string, created?: string) => `
  INSERT INTO product_counts (space_id, shard, total)
  SELECT $1, CASE WHEN k.counted THEN pg_backend_pid() % ${shards} ELSE 0 END,
         CASE WHEN k.counted THEN ${delta}::int
              ELSE (SELECT count(*)::int FROM products WHERE space_id = $1)${created ? ` + ${delta}::int` : ''} END
    FROM (SELECT EXISTS (SELECT 1 FROM product_counts WHERE space_id = $1) AS counted) k
   ${created ? `WHERE EXISTS (SELECT 1 FROM ${created})` : ''}
  ON CONFLICT (space_id, shard) DO UPDATE SET total = product_counts.total + ${delta}::int`;

/** A product to insert (insertProduct): every column a create sets. */
export interface NewProduct {
  id: string;
  spaceId: string;
  name: string;
  description: string | null;
  productType: string;
  domain: string | null;
  tags: string[];
  criticalityId: string | null;
  sensitivityId: string | null;
  maintenanceStatusId: string | null;
  slaFreshnessMinutes: number | null;
  attributes: Record<string, unknown>;
  loggingEventTypes: string[];
  loggingLastReviewed: Date | null;
  loggingNotes: string | null;
  createdBy: string;
}

/** Filters of the product list; each one given narrows it (AND). */
export interface ProductFilters {
  /** Already a LIKE pattern. */
  pattern?: string;
  tag?: string;
  ownerId?: string;
  productType?: string;
  criticalityIds?: string[];
}

/**
 * The product read model's row: one product as the catalog's statements answer it (snake_case wire
 * names, metadata value names joined). The one declaration of it: the reads below, the governance
 * read model (product-read-model.queries.ts, a subset of its columns) and the mapper use this type.
 * Its columns are the API's product fields, timestamps still Dates and the people not yet split.
 */
export interface ProductRow extends Omit<
  ProductResponse,
  'owners' | 'stewards' | 'logging_last_reviewed' | 'created_at' | 'updated_at'
> {
  logging_last_reviewed: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Owners and stewards with their names, aggregated per product. */
  people: { id: string; full_name: string; role: GovernanceRole }[];
  /** Only on unfiltered pages: the space's product counter. */
  counter_total?: number | null;
}

// The product read model in one statement: metadata value names (deleted values too, so products keep
// showing them) and owners/stewards with their names, aggregated per product. A statement that inserts
// the product reads it from its own CTEs (`from`, `roles`): the tables do not show its rows to it yet.
const selectProducts = (extraColumns = '', from = 'products', roles = 'product_roles') => `
  SELECT ${extraColumns} p.id, p.space_id, p.name, p.description, p.product_type, p.domain, p.tags,
         crit.name AS criticality, sens.name AS sensitivity, maint.slug AS maintenance_status,
         p.sla_freshness_minutes, p.attributes, p.logging_event_types, p.logging_last_reviewed,
         p.logging_notes, p.created_at, p.updated_at,
         COALESCE((
           SELECT json_agg(json_build_object('id', u.id, 'full_name', concat_ws(' ', NULLIF(u.first_name, ''), NULLIF(u.last_name, '')), 'role', r.role)
                           ORDER BY u.first_name, u.last_name, u.id)
             FROM ${roles} r JOIN users u ON u.id = r.user_id
            WHERE r.product_id = p.id
         ), '[]') AS people
    FROM ${from} p
    LEFT JOIN criticality_levels crit ON crit.id = p.criticality_id
    LEFT JOIN sensitivity_levels sens ON sens.id = p.sensitivity_id
    LEFT JOIN maintenance_statuses maint ON maint.id = p.maintenance_status_id`;

// One product of a space ($1 the product, $2 the space).
const PRODUCT_BY_ID_SQL = `${selectProducts()} WHERE p.id = $1 AND p.space_id = $2`;

/** The mapper of the row: the API's product (owners and stewards split, timestamps as ISO strings). */
function toProductResponse(row: ProductRow): ProductResponse {
  const owners: PersonRef[] = [];
  const stewards: PersonRef[] = [];
  for (const person of row.people) {
    (person.role === 'owner' ? owners : stewards).push({ id: person.id, full_name: person.full_name });
  }
  return {
    id: row.id,
    space_id: row.space_id,
    name: row.name,
    description: row.description,
    product_type: row.product_type,
    domain: row.domain,
    tags: row.tags,
    criticality: row.criticality,
    sensitivity: row.sensitivity,
    maintenance_status: row.maintenance_status,
    owners,
    stewards,
    sla_freshness_minutes: row.sla_freshness_minutes,
    attributes: row.attributes,
    logging_event_types: row.logging_event_types,
    logging_last_reviewed: row.logging_last_reviewed?.toISOString() ?? null,
    logging_notes: row.logging_notes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * insertProduct's statement, composed once: without an idempotency claim, and with one (the claim's SQL
 * goes in place of %CLAIM%, through composedText). Built on every create, the text was composed, then
 * hashed again for its prepared statement's name.
 */
const insertProductSql = (claimed: boolean) =>
  `WITH ${claimed ? 'claim AS (%CLAIM%),' : ''} created AS (
     INSERT INTO products (id, space_id, name, description, product_type, domain, tags, criticality_id,
                           sensitivity_id, maintenance_status_id, sla_freshness_minutes, attributes,
                           logging_event_types, logging_last_reviewed, logging_notes, created_by)
     SELECT $2::uuid, $1::uuid, $3::text, $4::text, $5::text, $6::text, $7::text[], $8::uuid, $9::uuid, $10::uuid,
            $11::int, $12::jsonb, $13::text[], $14::timestamptz, $15::text, $16::uuid
      ${claimed ? 'WHERE EXISTS (SELECT 1 FROM claim)' : ''}
     RETURNING *
   ), created_roles AS (
     INSERT INTO product_roles (product_id, user_id, role)
     SELECT c.id, r.user_id, r.role FROM created c, jsonb_to_recordset($17::jsonb) AS r(user_id uuid, role text)
     RETURNING product_id, user_id, role
   ), event AS (
     INSERT INTO outbox_events (type, space_id, actor_id, payload)
     SELECT e->>'type', (e->>'space_id')::uuid, (e->>'actor_id')::uuid, e->'payload'
       FROM created, (SELECT $18::jsonb AS e) x
   ), counted AS (
     ${countProductsSql('1', '$19', 'created')}
   )
   SELECT ${claimed ? 'EXISTS (SELECT 1 FROM claim)' : 'true'} AS claimed, p.*
     FROM (SELECT 1) one LEFT JOIN (${selectProducts('', 'created', 'created_roles')}) p ON true`;
const INSERT_PRODUCT_SQL = { unclaimed: insertProductSql(false), claimed: insertProductSql(true) };

/**
 * Reads of the product read model. They are the catalog's hot path (lists
 * and gets on large spaces), so they are plain SQL: one statement per read,
 * served by products_space_name_key (space, order), the trigram, tag and
 * type indexes, and the product_roles primary key. The catalog's other raw
 * statements are here for the same reason (one round trip each):
 * - product names by ids: the products primary key; ids by names:
 *   products_space_name_key;
 * - "involved in any product": product_roles_user_idx, then a scan of
 *   products by created_by (the onboarding checklist, once per user);
 * - a governance role granted idempotently (`ON CONFLICT DO NOTHING
 *   RETURNING`): the product_roles primary key;
 * - the space's product counter, moved in the writing transaction (its last
 *   statement) on one of PRODUCT_COUNT_SHARDS rows: product_counts' primary
 *   key (space_id, shard), and products_space_name_key for the first count.
 */
@Injectable()
export class ProductQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  /** The product as a read outside any transaction: a named prepared statement, planned once per connection. */
  async get(spaceId: string, productId: string): Promise<ProductResponse | null> {
    const [row] = await this.prepared.queryOutsideTransaction<ProductRow>(PRODUCT_BY_ID_SQL, [
      productId,
      spaceId,
    ]);
    return row ? toProductResponse(row) : null;
  }

  async one(em: EntityManager, spaceId: string, productId: string): Promise<ProductResponse | null> {
    const rows = (await em.query(PRODUCT_BY_ID_SQL, [productId, spaceId])) as ProductRow[];
    return rows[0] ? toProductResponse(rows[0]) : null;
  }

  async byIds(em: EntityManager, ids: string[]): Promise<ProductResponse[]> {
    const rows = (await em.query(`${selectProducts()} WHERE p.id = ANY($1::uuid[])`, [ids])) as ProductRow[];
    return rows.map(toProductResponse);
  }

  /**
   * A page in name order (case-insensitive) and how many products match: a
   * count when filters are given, else the space's product counter, read in
   * the same statement. `total` is null when that is unknown (an empty page
   * of an unfiltered list, or a space without a counter yet).
   */
  async page(
    em: EntityManager,
    spaceId: string,
    filters: ProductFilters,
    skip: number,
    limit: number,
  ): Promise<{ items: ProductResponse[]; total: number | null }> {
    const params: unknown[] = [spaceId];
    const where = ['p.space_id = $1'];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filters.pattern !== undefined) {
      where.push(`(p.name || ' ' || coalesce(p.description, '')) ILIKE ${param(filters.pattern)}`);
    }
    if (filters.tag !== undefined) where.push(`p.tags @> ARRAY[${param(filters.tag)}]::text[]`);
    if (filters.ownerId !== undefined) {
      where.push(
        `p.id IN (SELECT o.product_id FROM product_roles o WHERE o.user_id = ${param(filters.ownerId)} AND o.role = 'owner')`,
      );
    }
    if (filters.productType !== undefined) where.push(`p.product_type = ${param(filters.productType)}`);
    if (filters.criticalityIds !== undefined) {
      where.push(`p.criticality_id = ANY(${param(filters.criticalityIds)}::uuid[])`);
    }
    const condition = where.join(' AND ');
    const filtered = where.length > 1;
    const countParams = [...params];
    const counter = filtered
      ? ''
      : '(SELECT sum(c.total)::int FROM product_counts c WHERE c.space_id = $1) AS counter_total,';
    const rows = (await em.query(
      `${selectProducts(counter)} WHERE ${condition} ORDER BY lower(p.name) LIMIT ${param(limit)} OFFSET ${param(skip)}`,
      params,
    )) as ProductRow[];
    let total = rows[0]?.counter_total ?? null;
    if (filtered) {
      const [count] = (await em.query(
        `SELECT count(*)::int AS n FROM products p WHERE ${condition}`,
        countParams,
      )) as {
        n: number;
      }[];
      total = count.n;
    }
    return { items: rows.map(toProductResponse), total };
  }

  /** Id and name of the products that exist among `ids` (in `spaceId` only, when given), by name. */
  async namesOf(
    em: EntityManager,
    ids: string[],
    spaceId: string | null,
  ): Promise<{ id: string; name: string }[]> {
    return (await em.query(
      `SELECT id, name FROM products WHERE id = ANY($1::uuid[]) AND ($2::uuid IS NULL OR space_id = $2)
        ORDER BY name, id`,
      [ids, spaceId],
    )) as { id: string; name: string }[];
  }

  /** Whether the user created a product or holds a governance role on one. */
  async isInvolvedInAnyProduct(em: EntityManager, userId: string): Promise<boolean> {
    const [row] = (await em.query(
      `SELECT EXISTS (SELECT 1 FROM product_roles WHERE user_id = $1)
           OR EXISTS (SELECT 1 FROM products WHERE created_by = $1) AS found`,
      [userId],
    )) as { found: boolean }[];
    return row.found;
  }

  /** Id and name of the space's products among `names`. */
  async idsByName(
    em: EntityManager,
    spaceId: string,
    names: string[],
  ): Promise<{ id: string; name: string }[]> {
    return (await em.query(`SELECT id, name FROM products WHERE space_id = $1 AND name = ANY($2)`, [
      spaceId,
      names,
    ])) as { id: string; name: string }[];
  }

  /** Grants the role unless held; answers whether it was inserted. */
  async grantRole(
    em: EntityManager,
    productId: string,
    userId: string,
    role: GovernanceRole,
  ): Promise<boolean> {
    const inserted = (await em.query(
      `INSERT INTO product_roles (product_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING product_id`,
      [productId, userId, role],
    )) as unknown[];
    return inserted.length > 0;
  }

  /**
   * A product create in one autocommit statement: the product, its owners and stewards, its outbox
   * event (`eventRow`, OutboxService.row), the counter moved (as countProducts) and the product read
   * back. With a claim (an idempotency key's, parameters from $20) it writes only if the claim did;
   * `product` is then null when it did not. A taken name fails the statement (products_space_name_key).
   * A named prepared statement: parsing and planning it cost more than running it.
   */
  async insertProduct(
    product: NewProduct,
    roles: { user_id: string; role: GovernanceRole }[],
    eventRow: string,
    claim?: { sql: string; params: unknown[] },
  ): Promise<{ product: ProductResponse | null; claimed: boolean }> {
    const params = [
      product.spaceId,
      product.id,
      product.name,
      product.description,
      product.productType,
      product.domain,
      product.tags,
      product.criticalityId,
      product.sensitivityId,
      product.maintenanceStatusId,
      product.slaFreshnessMinutes,
      JSON.stringify(product.attributes),
      product.loggingEventTypes,
      product.loggingLastReviewed,
      product.loggingNotes,
      product.createdBy,
      JSON.stringify(roles),
      eventRow,
      PRODUCT_COUNT_SHARDS,
    ];
    const [row] = await this.prepared.queryOutsideTransaction<
      ProductRow & { claimed: boolean; id: string | null }
    >(
      claim ? composedText(INSERT_PRODUCT_SQL.claimed, '%CLAIM%', claim.sql) : INSERT_PRODUCT_SQL.unclaimed,
      claim ? [...params, ...claim.params] : params,
    );
    return { product: row.id === null ? null : toProductResponse(row), claimed: row.claimed };
  }

  /**
   * Moves the space's product counter by `delta` on the shard of this connection (pool connections have
   * consecutive backend pids, so concurrent writers land on distinct rows), creating the counter from a
   * count the first time (on shard 0, so two first writes meet on one row and the second adds its delta).
   * Callers make it the last statement of their transaction: the shard row stays locked until commit.
   */
  async countProducts(em: EntityManager, spaceId: string, delta: 1 | -1): Promise<void> {
    await em.query(countProductsSql('$2', '$3'), [spaceId, delta, PRODUCT_COUNT_SHARDS]);
  }

  /** The space's product counter (the sum of its shards), null when the space has none yet. */
  async counterTotal(em: EntityManager, spaceId: string): Promise<number | null> {
    const [row] = (await em.query(`SELECT sum(total)::int AS total FROM product_counts WHERE space_id = $1`, [
      spaceId,
    ])) as { total: number | null }[];
    return row.total;
  }
}
