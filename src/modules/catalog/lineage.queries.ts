import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AncestorPair } from './lineage-graph';

export interface GraphEdgeRow {
  upstream_id: string;
  downstream_id: string;
  job: { namespace: string; name: string } | null;
}

export interface GraphRows {
  nodes: { id: string; name: string; depth: number }[];
  edges: GraphEdgeRow[];
}

export interface ColumnEdgeRow {
  upstream_id: string;
  downstream_id: string;
  upstream_column: string;
  downstream_column: string;
  job_namespace: string | null;
  job_name: string | null;
}

/**
 * The recursive walks over `lineage_edges`. Downstream steps use the primary
 * key (upstream_id, downstream_id), upstream steps the (downstream_id,
 * upstream_id) index. Walks that only collect ids use UNION on the id alone,
 * so each product is visited once and the walk ends on any graph. Raw SQL
 * because the repository API has no recursive query; the per-space advisory
 * lock (no table, no index) has no repository form either. The edges among
 * a set of products are read by the primary key (upstream_id first), column
 * lineage among them by the lineage_column_edges primary key (downstream_id
 * first).
 */
@Injectable()
export class LineageQueries {
  /** Serialises the edge writes of one space until the transaction ends. */
  async lockSpace(em: EntityManager, spaceId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`lineage:${spaceId}`]);
  }

  /**
   * The lineage graph around a product in one statement: a depth-limited
   * walk per direction (each step an index lookup), every product reached at
   * its shortest distance with its name, and every edge between two of them.
   */
  async graph(
    em: EntityManager,
    productId: string,
    directions: ('upstream' | 'downstream')[],
    maxDepth: number,
  ): Promise<GraphRows> {
    const walks = directions.map((direction) => {
      const [from, to] =
        direction === 'downstream' ? ['upstream_id', 'downstream_id'] : ['downstream_id', 'upstream_id'];
      return `${direction}(id, depth) AS (
         SELECT $1::uuid, 0
         UNION
         SELECT e.${to}, w.depth + 1 FROM ${direction} w JOIN lineage_edges e ON e.${from} = w.id WHERE w.depth < $2
       )`;
    });
    const reached = directions.map((direction) => `SELECT id, depth FROM ${direction}`).join(' UNION ALL ');
    const rows = (await em.query(
      `WITH RECURSIVE ${walks.join(', ')},
       nodes AS MATERIALIZED (SELECT id, min(depth) AS depth FROM (${reached}) r GROUP BY id)
       SELECT n.id AS a, p.name AS b, n.depth::int AS depth, NULL AS job_namespace, NULL AS job_name
         FROM nodes n JOIN products p ON p.id = n.id
       UNION ALL
       SELECT e.upstream_id, e.downstream_id::text, NULL, e.job_namespace, e.job_name
         FROM nodes n JOIN lineage_edges e ON e.upstream_id = n.id
        WHERE e.downstream_id IN (SELECT id FROM nodes)`,
      [productId, maxDepth],
    )) as {
      a: string;
      b: string;
      depth: number | null;
      job_namespace: string | null;
      job_name: string | null;
    }[];
    const graph: GraphRows = { nodes: [], edges: [] };
    for (const row of rows) {
      if (row.depth === null) {
        const job =
          row.job_namespace !== null && row.job_name !== null
            ? { namespace: row.job_namespace, name: row.job_name }
            : null;
        graph.edges.push({ upstream_id: row.a, downstream_id: row.b, job });
      } else graph.nodes.push({ id: row.a, name: row.b, depth: row.depth });
    }
    return graph;
  }

  /** Every edge between two of `ids`, with its job (the primary key, upstream_id first). */
  async edgesWithin(em: EntityManager, ids: string[]): Promise<GraphEdgeRow[]> {
    const rows = (await em.query(
      `SELECT upstream_id, downstream_id, job_namespace, job_name FROM lineage_edges
        WHERE upstream_id = ANY($1::uuid[]) AND downstream_id = ANY($1::uuid[])`,
      [ids],
    )) as {
      upstream_id: string;
      downstream_id: string;
      job_namespace: string | null;
      job_name: string | null;
    }[];
    return rows.map((row) => ({
      upstream_id: row.upstream_id,
      downstream_id: row.downstream_id,
      job:
        row.job_namespace !== null && row.job_name !== null
          ? { namespace: row.job_namespace, name: row.job_name }
          : null,
    }));
  }

  /** Column lineage between any two of `ids` (downstream first: the primary key's order). */
  async columnEdgesWithin(em: EntityManager, ids: string[]): Promise<ColumnEdgeRow[]> {
    return (await em.query(
      `SELECT upstream_id, downstream_id, upstream_column, downstream_column, job_namespace, job_name
         FROM lineage_column_edges
        WHERE downstream_id = ANY($1::uuid[]) AND upstream_id = ANY($1::uuid[])
        ORDER BY downstream_id, downstream_column, upstream_column`,
      [ids],
    )) as ColumnEdgeRow[];
  }

  /** The products directly upstream of `productId` (feeding it) and directly downstream (fed by it), by name. */
  async neighbours(
    em: EntityManager,
    productId: string,
    limit: number,
  ): Promise<{ direction: 'upstream' | 'downstream'; id: string; name: string }[]> {
    return (await em.query(
      `(SELECT 'upstream' AS direction, p.id, p.name FROM lineage_edges e JOIN products p ON p.id = e.upstream_id
         WHERE e.downstream_id = $1 ORDER BY p.name LIMIT $2)
       UNION ALL
       (SELECT 'downstream', p.id, p.name FROM lineage_edges e JOIN products p ON p.id = e.downstream_id
         WHERE e.upstream_id = $1 ORDER BY p.name LIMIT $2)`,
      [productId, limit],
    )) as { direction: 'upstream' | 'downstream'; id: string; name: string }[];
  }

  /** Every product downstream of `productId`, any depth (itself excluded). */
  async downstreamIds(em: EntityManager, productId: string): Promise<string[]> {
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

  /**
   * Id and name of every product downstream of `productId`, any depth (itself
   * excluded), by name. The names are looked up per reached product (a scalar subquery):
   * the walk's size is unknown to the planner, which would otherwise hash all products.
   */
  async downstreamProducts(em: EntityManager, productId: string): Promise<{ id: string; name: string }[]> {
    return (await em.query(
      `WITH RECURSIVE down(id) AS (
         SELECT downstream_id FROM lineage_edges WHERE upstream_id = $1
         UNION
         SELECT e.downstream_id FROM down d JOIN lineage_edges e ON e.upstream_id = d.id
       )
       SELECT id, name FROM (
         SELECT d.id, (SELECT p.name FROM products p WHERE p.id = d.id) AS name FROM down d WHERE d.id <> $1
       ) named
        WHERE name IS NOT NULL ORDER BY name, id`,
      [productId],
    )) as { id: string; name: string }[];
  }

  /** `productId`, its ancestors and its descendants (any depth). */
  async relatedIds(em: EntityManager, productId: string): Promise<string[]> {
    const rows = (await em.query(
      `WITH RECURSIVE down(id) AS (
         SELECT $1::uuid
         UNION
         SELECT e.downstream_id FROM down d JOIN lineage_edges e ON e.upstream_id = d.id
       ), up(id) AS (
         SELECT $1::uuid
         UNION
         SELECT e.upstream_id FROM up u JOIN lineage_edges e ON e.downstream_id = u.id
       )
       SELECT id FROM down UNION SELECT id FROM up`,
      [productId],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** Whether `to` is downstream of `from` (any depth); stops at the first hit. */
  async reaches(em: EntityManager, from: string, to: string): Promise<boolean> {
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
  async ancestorPairsWithin(em: EntityManager, ids: string[]): Promise<AncestorPair[]> {
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
}
