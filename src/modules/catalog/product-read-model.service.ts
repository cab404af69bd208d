import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export interface GovernedPerson {
  id: string;
  email: string;
  full_name: string;
}

/**
 * The product read model for governance (policy rules, reports): the
 * product's fields with metadata value names and its owners and stewards
 * with their emails.
 */
export interface GovernedProduct {
  id: string;
  space_id: string;
  name: string;
  description: string | null;
  product_type: string;
  domain: string | null;
  tags: string[];
  criticality: string | null;
  sensitivity: string | null;
  maintenance_status: string | null;
  owners: GovernedPerson[];
  stewards: GovernedPerson[];
  sla_freshness_minutes: number | null;
  attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

type ProductRow = Omit<GovernedProduct, 'owners' | 'stewards'> & { sort_key: string };

const SELECT = `
  SELECT p.id, p.space_id, p.name, lower(p.name) AS sort_key, p.description, p.product_type, p.domain, p.tags,
         crit.name AS criticality, sens.name AS sensitivity, maint.slug AS maintenance_status,
         p.sla_freshness_minutes, p.attributes, p.created_at, p.updated_at
    FROM products p
    LEFT JOIN criticality_levels crit ON crit.id = p.criticality_id
    LEFT JOIN sensitivity_levels sens ON sens.id = p.sensitivity_id
    LEFT JOIN maintenance_statuses maint ON maint.id = p.maintenance_status_id`;

/**
 * Batch reads of whole spaces for policy evaluation and reports: keyset
 * pages on the (space, lower(name)) unique index, and the people of a page
 * in one more query on the product_roles key. Never one query per product.
 */
@Injectable()
export class ProductReadModel {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Up to `limit` products of the space in name order after `afterKey` (the last page's `cursor`). */
  async page(
    spaceId: string,
    afterKey: string | null,
    limit: number,
    em?: EntityManager,
  ): Promise<{ items: GovernedProduct[]; cursor: string | null }> {
    const manager = em ?? this.dataSource.manager;
    const rows = (await manager.query(
      `${SELECT} WHERE p.space_id = $1 AND ($2::text IS NULL OR lower(p.name) > $2)
        ORDER BY lower(p.name) LIMIT $3`,
      [spaceId, afterKey, limit],
    )) as ProductRow[];
    const items = await this.withPeople(manager, rows);
    return { items, cursor: rows.length === limit ? rows[rows.length - 1].sort_key : null };
  }

  /**
   * Up to `limit` products of the space in id order after `afterId` (on the (space, id)
   * index), so that a caller can read its own rows for the same id range alongside.
   */
  async pageById(
    spaceId: string,
    afterId: string | null,
    limit: number,
    em?: EntityManager,
  ): Promise<GovernedProduct[]> {
    const manager = em ?? this.dataSource.manager;
    const rows = (await manager.query(
      `${SELECT} WHERE p.space_id = $1 AND ($2::uuid IS NULL OR p.id > $2) ORDER BY p.id LIMIT $3`,
      [spaceId, afterId, limit],
    )) as ProductRow[];
    return this.withPeople(manager, rows);
  }

  /** The products of the space among `ids`, in name order. */
  async inSpace(spaceId: string, ids: string[], em?: EntityManager): Promise<GovernedProduct[]> {
    if (!ids.length) return [];
    const manager = em ?? this.dataSource.manager;
    const rows = (await manager.query(
      `${SELECT} WHERE p.space_id = $1 AND p.id = ANY($2::uuid[]) ORDER BY lower(p.name)`,
      [spaceId, ids],
    )) as ProductRow[];
    return this.withPeople(manager, rows);
  }

  /** How many products the space holds (its product counter, else a count). */
  async count(spaceId: string, em?: EntityManager): Promise<number> {
    const [row] = (await (em ?? this.dataSource.manager).query(
      `SELECT COALESCE((SELECT total FROM product_counts WHERE space_id = $1),
                       (SELECT count(*) FROM products WHERE space_id = $1))::int AS total`,
      [spaceId],
    )) as { total: number }[];
    return row.total;
  }

  private async withPeople(em: EntityManager, rows: ProductRow[]): Promise<GovernedProduct[]> {
    if (!rows.length) return [];
    const people = (await em.query(
      `SELECT r.product_id, r.role, u.id, u.email,
              concat_ws(' ', NULLIF(u.first_name, ''), NULLIF(u.last_name, '')) AS full_name
         FROM unnest($1::uuid[]) AS ids(product_id)
         JOIN product_roles r ON r.product_id = ids.product_id
         JOIN users u ON u.id = r.user_id
        ORDER BY u.first_name, u.last_name, u.id`,
      [rows.map((r) => r.id)],
    )) as { product_id: string; role: 'owner' | 'steward'; id: string; email: string; full_name: string }[];
    const byProduct = new Map<string, { owners: GovernedPerson[]; stewards: GovernedPerson[] }>();
    for (const p of people) {
      const entry = byProduct.get(p.product_id) ?? { owners: [], stewards: [] };
      (p.role === 'owner' ? entry.owners : entry.stewards).push({
        id: p.id,
        email: p.email,
        full_name: p.full_name,
      });
      byProduct.set(p.product_id, entry);
    }
    return rows.map(({ sort_key: _key, ...row }) => ({
      ...row,
      owners: byProduct.get(row.id)?.owners ?? [],
      stewards: byProduct.get(row.id)?.stewards ?? [],
    }));
  }
}
