import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The risk register's raw SQL: a set-based link insert that reports which
 * links were new (INSERT … ON CONFLICT DO NOTHING RETURNING), the heat map's
 * GROUP BY with array_agg, and the batch read of linked products, none of which
 * the repository API expresses in one statement. Indexes: the risk_products
 * primary key (risk_id, product_id) for the insert and the batch read, and
 * risks_space_cell_idx (space_id, likelihood, impact, id) for the heat map.
 */
@Injectable()
export class RiskQueries {
  /** Links the products to the risk; returns the links that did not exist yet. */
  async linkProducts(em: EntityManager, riskId: string, productIds: string[]): Promise<unknown[]> {
    return (await em.query(
      `INSERT INTO risk_products (risk_id, product_id) SELECT $1, unnest($2::uuid[])
         ON CONFLICT DO NOTHING RETURNING product_id`,
      [riskId, productIds],
    )) as unknown[];
  }

  /** The space's risks grouped by heat-map cell. */
  async heatMapGroups(
    em: EntityManager,
    spaceId: string,
  ): Promise<{ likelihood: string; impact: string; risk_ids: string[] }[]> {
    return (await em.query(
      `SELECT likelihood, impact, array_agg(id ORDER BY id) AS risk_ids FROM risks
        WHERE space_id = $1 GROUP BY likelihood, impact`,
      [spaceId],
    )) as { likelihood: string; impact: string; risk_ids: string[] }[];
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
