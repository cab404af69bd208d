import type { EntityManager } from 'typeorm';
import type { AncestorPair, WalkedNode } from './lineage-graph';

/**
 * The recursive walks over `lineage_edges`. Downstream steps use the primary
 * key (upstream_id, downstream_id), upstream steps the (downstream_id,
 * upstream_id) index. Walks that only collect ids use UNION on the id alone,
 * so each product is visited once and the walk ends on any graph.
 */
export class LineageQueries {
  /** Products within `maxDepth` hops of `productId` in one direction, at their shortest distance (0 for itself). */
  static async walk(
    em: EntityManager,
    productId: string,
    direction: 'upstream' | 'downstream',
    maxDepth: number,
  ): Promise<WalkedNode[]> {
    const [from, to] =
      direction === 'downstream' ? ['upstream_id', 'downstream_id'] : ['downstream_id', 'upstream_id'];
    return (await em.query(
      `WITH RECURSIVE walk(id, depth) AS (
         SELECT $1::uuid, 0
         UNION
         SELECT e.${to}, w.depth + 1
           FROM walk w JOIN lineage_edges e ON e.${from} = w.id
          WHERE w.depth < $2
       )
       SELECT id, min(depth)::int AS depth FROM walk GROUP BY id`,
      [productId, maxDepth],
    )) as WalkedNode[];
  }

  /** Every product downstream of `productId`, any depth (itself excluded). */
  static async downstreamIds(em: EntityManager, productId: string): Promise<string[]> {
    const rows = (await em.query(
      `WITH RECURSIVE down(id) AS (
         SELECT downstream_id FROM lineage_edges WHERE upstream_id = $1
         UNION
         SELECT e.downstream_id FROM down d JOIN lineage_edges e ON e.upstream_id = d.id
       )
       SELECT id FROM down WHERE id <> $1`,
      [productId],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** Whether `to` is downstream of `from` (any depth); stops at the first hit. */
  static async reaches(em: EntityManager, from: string, to: string): Promise<boolean> {
    const rows = (await em.query(
      `WITH RECURSIVE down(id) AS (
         SELECT downstream_id FROM lineage_edges WHERE upstream_id = $1
         UNION
         SELECT e.downstream_id FROM down d JOIN lineage_edges e ON e.upstream_id = d.id
       )
       SELECT 1 FROM down WHERE id = $2 LIMIT 1`,
      [from, to],
    )) as unknown[];
    return rows.length > 0;
  }

  /** (product, ancestor) for every member of `ids` and every member that is upstream of it. */
  static async ancestorPairsWithin(em: EntityManager, ids: string[]): Promise<AncestorPair[]> {
    return (await em.query(
      `WITH RECURSIVE up(product, ancestor) AS (
         SELECT e.downstream_id, e.upstream_id FROM lineage_edges e WHERE e.downstream_id = ANY($1::uuid[])
         UNION
         SELECT u.product, e.upstream_id FROM up u JOIN lineage_edges e ON e.downstream_id = u.ancestor
       )
       SELECT product, ancestor FROM up WHERE ancestor = ANY($1::uuid[])`,
      [ids],
    )) as AncestorPair[];
  }

  /** Every edge between two of these products. */
  static async edgesAmong(
    em: EntityManager,
    ids: string[],
  ): Promise<{ upstream_id: string; downstream_id: string }[]> {
    return (await em.query(
      `SELECT e.upstream_id, e.downstream_id
         FROM unnest($1::uuid[]) AS n(id)
         JOIN lineage_edges e ON e.upstream_id = n.id
        WHERE e.downstream_id = ANY($1::uuid[])
        ORDER BY e.upstream_id, e.downstream_id`,
      [ids],
    )) as { upstream_id: string; downstream_id: string }[];
  }

  static async names(em: EntityManager, ids: string[]): Promise<Map<string, string>> {
    const rows = (await em.query(`SELECT id, name FROM products WHERE id = ANY($1::uuid[])`, [ids])) as {
      id: string;
      name: string;
    }[];
    return new Map(rows.map((row) => [row.id, row.name]));
  }
}
