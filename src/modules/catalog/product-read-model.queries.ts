import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ProductRow } from './products.queries';

/**
 * A product of the governance read model: the product row's columns without the logging fields and
 * without its people (read in one more statement), with its name-order key.
 */
export type GovernanceProductRow = Omit<
  ProductRow,
  'logging_event_types' | 'logging_last_reviewed' | 'logging_notes' | 'people' | 'counter_total'
> & { sort_key: string };

const SELECT = `
  SELECT p.id, p.space_id, p.name, lower(p.name) AS sort_key, p.description, p.product_type, p.domain, p.tags,
         crit.name AS criticality, sens.name AS sensitivity, maint.slug AS maintenance_status,
         p.sla_freshness_minutes, p.attributes, p.created_at, p.updated_at
    FROM products p
    LEFT JOIN criticality_levels crit ON crit.id = p.criticality_id
    LEFT JOIN sensitivity_levels sens ON sens.id = p.sensitivity_id
    LEFT JOIN maintenance_statuses maint ON maint.id = p.maintenance_status_id`;

/**
 * The governance read model's statements (policy evaluation, reports): raw
 * SQL so that a whole space is read in keyset pages, one statement per page
 * with the metadata names joined, and the people of a page in one more
 * statement, never one query per product. Indexes: products_space_name_key
 * (space_id, lower(name)) for the name pages and inSpace's order, the
 * (space_id, id) index for the id pages, the products primary key,
 * product_counts' primary key (space_id, shard), and for the people the
 * product_roles primary key and the users primary key. catalog.contract.ts
 * declares the same read model for other modules' statements.
 */
@Injectable()
export class ProductReadModelQueries {
  /** Up to `limit` products of the space in name order after `afterKey`. */
  async pageByName(
    em: EntityManager,
    spaceId: string,
    afterKey: string | null,
    limit: number,
  ): Promise<GovernanceProductRow[]> {
    return (await em.query(
      `${SELECT} WHERE p.space_id = $1 AND ($2::text IS NULL OR lower(p.name) > $2)
        ORDER BY lower(p.name) LIMIT $3`,
      [spaceId, afterKey, limit],
    )) as GovernanceProductRow[];
  }

  /** Up to `limit` products of the space in id order after `afterId`. */
  async pageById(
    em: EntityManager,
    spaceId: string,
    afterId: string | null,
    limit: number,
  ): Promise<GovernanceProductRow[]> {
    return (await em.query(
      `${SELECT} WHERE p.space_id = $1 AND ($2::uuid IS NULL OR p.id > $2) ORDER BY p.id LIMIT $3`,
      [spaceId, afterId, limit],
    )) as GovernanceProductRow[];
  }

  /** The products of the space among `ids`, in name order. */
  async inSpace(em: EntityManager, spaceId: string, ids: string[]): Promise<GovernanceProductRow[]> {
    return (await em.query(
      `${SELECT} WHERE p.space_id = $1 AND p.id = ANY($2::uuid[]) ORDER BY lower(p.name)`,
      [spaceId, ids],
    )) as GovernanceProductRow[];
  }

  /** How many products the space holds (its product counter, else a count). */
  async count(em: EntityManager, spaceId: string): Promise<number> {
    const [row] = (await em.query(
      `SELECT COALESCE((SELECT sum(total) FROM product_counts WHERE space_id = $1),
                       (SELECT count(*) FROM products WHERE space_id = $1))::int AS total`,
      [spaceId],
    )) as { total: number }[];
    return row.total;
  }

  /** The owners and stewards of the products, with their emails and names. */
  async people(
    em: EntityManager,
    productIds: string[],
  ): Promise<
    { product_id: string; role: 'owner' | 'steward'; id: string; email: string; full_name: string }[]
  > {
    return (await em.query(
      `SELECT r.product_id, r.role, u.id, u.email,
              concat_ws(' ', NULLIF(u.first_name, ''), NULLIF(u.last_name, '')) AS full_name
         FROM unnest($1::uuid[]) AS ids(product_id)
         JOIN product_roles r ON r.product_id = ids.product_id
         JOIN users u ON u.id = r.user_id
        ORDER BY u.first_name, u.last_name, u.id`,
      [productIds],
    )) as { product_id: string; role: 'owner' | 'steward'; id: string; email: string; full_name: string }[];
  }
}
