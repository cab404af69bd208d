import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PreparedQueries } from '../../database/prepared-queries.runner';

// A named prepared statement: planned once per connection (its plan does not depend on the values).
const HEAT_MAP_SQL = `SELECT json_build_object('cells', coalesce(json_agg(json_build_object(
           'likelihood', g.likelihood, 'impact', g.impact, 'count', coalesce(c.count, 0),
           'risk_ids', ids.risk_ids) ORDER BY g.position), '[]'::json))::text AS document
    FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS g(likelihood, impact, position)
    LEFT JOIN risk_heat_map_cells c ON c.space_id = $1 AND c.likelihood = g.likelihood AND c.impact = g.impact
   CROSS JOIN LATERAL (
     SELECT coalesce(json_agg(p.id ORDER BY p.id), '[]'::json) AS risk_ids FROM (
       SELECT r.id FROM risks r WHERE r.space_id = $1 AND r.likelihood = g.likelihood AND r.impact = g.impact
        ORDER BY r.id OFFSET $4 LIMIT $5) p) ids`;

/**
 * The risk register's raw SQL: a set-based link insert that reports which
 * links were new (INSERT … ON CONFLICT DO NOTHING RETURNING), the heat map's
 * counts and id pages encoded as JSON text, and the batch read of linked products, none of which
 * the repository API expresses in one statement. Indexes: the risk_products
 * primary key (risk_id, product_id) for the insert and the batch read, and
 * for the heat map the risk_heat_map_cells primary key (space_id, likelihood,
 * impact) and risks_space_cell_idx (space_id, likelihood, impact, id).
 */
@Injectable()
export class RiskQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  /** Links the products to the risk; returns the links that did not exist yet. */
  async linkProducts(em: EntityManager, riskId: string, productIds: string[]): Promise<unknown[]> {
    return (await em.query(
      `INSERT INTO risk_products (risk_id, product_id) SELECT $1, unnest($2::uuid[])
         ON CONFLICT DO NOTHING RETURNING product_id`,
      [riskId, productIds],
    )) as unknown[];
  }

  /**
   * The heat map as JSON text: every cell asked for (`cells`, in that order)
   * with its count (risk_heat_map_cells, kept by triggers on risks) and the
   * ids from `offset`, at most `limit`, in id order: a short index-only range
   * of risks_space_cell_idx per cell. The database encodes the answer.
   */
  async heatMapJson(
    spaceId: string,
    cells: readonly { likelihood: string; impact: string }[],
    page: { offset: number; limit: number },
  ): Promise<string> {
    const [row] = await this.prepared.queryOutsideTransaction<{ document: string }>(HEAT_MAP_SQL, [
      spaceId,
      cells.map((cell) => cell.likelihood),
      cells.map((cell) => cell.impact),
      page.offset,
      page.limit,
    ]);
    return row.document;
  }

  /** The linked products of the risks, in product id order. */
  async productLinks(
    em: EntityManager,
    riskIds: string[],
  ): Promise<{ risk_id: string; product_id: string }[]> {
    return (await em.query(
      `SELECT risk_id, product_id FROM risk_products WHERE risk_id = ANY($1::uuid[]) ORDER BY product_id`,
      [riskIds],
    )) as { risk_id: string; product_id: string }[];
  }
}
