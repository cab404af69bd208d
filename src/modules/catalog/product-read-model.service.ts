import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ProductReadModelQueries, ProductRow } from './product-read-model.queries';

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

/**
 * Batch reads of whole spaces for policy evaluation and reports: keyset
 * pages on the (space, lower(name)) unique index, and the people of a page
 * in one more query on the product_roles key. Never one query per product.
 */
@Injectable()
export class ProductReadModel {
  constructor(private readonly queries: ProductReadModelQueries) {}

  /** Up to `limit` products of the space in name order after `afterKey` (the last page's `cursor`). */
  async page(
    spaceId: string,
    afterKey: string | null,
    limit: number,
    em: EntityManager,
  ): Promise<{ items: GovernedProduct[]; cursor: string | null }> {
    const rows = await this.queries.pageByName(em, spaceId, afterKey, limit);
    const items = await this.withPeople(em, rows);
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
    em: EntityManager,
  ): Promise<GovernedProduct[]> {
    const rows = await this.queries.pageById(em, spaceId, afterId, limit);
    return this.withPeople(em, rows);
  }

  /** The products of the space among `ids`, in name order. */
  async inSpace(spaceId: string, ids: string[], em: EntityManager): Promise<GovernedProduct[]> {
    if (!ids.length) return [];
    const rows = await this.queries.inSpace(em, spaceId, ids);
    return this.withPeople(em, rows);
  }

  /** How many products the space holds (its product counter, else a count). */
  async count(spaceId: string, em: EntityManager): Promise<number> {
    return this.queries.count(em, spaceId);
  }

  private async withPeople(em: EntityManager, rows: ProductRow[]): Promise<GovernedProduct[]> {
    if (!rows.length) return [];
    const people = await this.queries.people(
      em,
      rows.map((r) => r.id),
    );
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
