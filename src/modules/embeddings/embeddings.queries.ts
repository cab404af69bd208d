import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { EmbeddingProvider, EmbeddingStatus } from './entities/embedding-config.entity';
import type { SemanticItemType } from './entities/item-embedding.entity';

/** Rows a page of the vector cache's reads holds. */
export const VECTOR_PAGE = 5_000;

/** A stored configuration row (embedding_configs). */
export interface EmbeddingConfigRow {
  id: string;
  instance_id: string | null;
  provider: EmbeddingProvider;
  model_name: string;
  dimensions: number;
  api_key_sealed: string | null;
  api_base_url: string | null;
  is_enabled: boolean;
  index_version: string;
  status: EmbeddingStatus;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A stored vector as the in-process index reads it. */
export interface WrittenVectorRow {
  item_type: SemanticItemType;
  item_id: string;
  space_id: string;
  /** `array_send(embedding)`: the binary form parses far faster than the text form of a real[]. */
  embedding: Buffer;
  fingerprint: string;
  written_xid: string;
}

export interface VectorChangeRow extends WrittenVectorRow {
  kind: 'removed' | 'written' | 'horizon';
}

/** A vector to write: the `real[]` literal of the embedding. */
export interface VectorWrite {
  itemId: string;
  spaceId: string;
  embedding: string;
  contentHash: string;
  sourceUpdatedAt: Date;
}

const CONFIG_SQL = `SELECT id, instance_id, provider, model_name, dimensions, api_key_sealed, api_base_url, is_enabled,
  index_version, status, updated_by, created_at, updated_at FROM embedding_configs WHERE scope = $1`;

// Qualified names in ORDER BY: a bare `written_xid` would name the text output column and sort by text.
const WRITTEN_SINCE = `SELECT e.item_type, e.item_id, e.space_id, array_send(e.embedding) AS embedding,
       e.fingerprint, e.written_xid::text AS written_xid
  FROM item_embeddings e WHERE (e.written_xid, e.item_type, e.item_id) > ($1::bigint, $2::text, $3::uuid)
 ORDER BY e.written_xid, e.item_type, e.item_id LIMIT ${VECTOR_PAGE}`;

/** Rows the source must still have for its vector to be written (a deleted or unpublished item is not indexed). */
const SOURCE_EXISTS: Record<SemanticItemType, string> = {
  product: 'EXISTS (SELECT 1 FROM products p WHERE p.id = u.item_id)',
  standard_page: `EXISTS (SELECT 1 FROM standard_pages s WHERE s.id = u.item_id AND s.status = 'published')`,
};

/**
 * The embeddings' raw SQL. Vectors are `real[]` (or cast to pgvector's
 * `vector(n)`), written in multi-row upserts from unnest arrays that keep the
 * newest read, read back in binary (array_send) by transaction id for the
 * in-process index, and searched with HNSW indexes created per dimension
 * count: pgvector types, snapshots, advisory locks, DDL and SET LOCAL are
 * beyond the repository API. Indexes: the item_embeddings primary key
 * (item_type, item_id) for upserts, hashes, removals and exact rescoring;
 * item_embeddings_written_xid_idx (written_xid, item_type, item_id) for the
 * cache's keyset pages; item_embedding_removals_xid_idx and
 * item_embedding_removals_at_idx for removals and their purge; the partial
 * item_embeddings_hnsw_<n> index for nearest queries; embedding_configs'
 * unique scope and embedding_reindex_runs' primary key (scope, item_type)
 * for single-row reads and updates. Dimensions and limits go into the SQL
 * text only as checked integers.
 */
@Injectable()
export class EmbeddingQueries {
  // Configuration (embedding_configs).

  async config(em: EntityManager, scope: string): Promise<EmbeddingConfigRow | undefined> {
    const [row] = (await em.query(CONFIG_SQL, [scope])) as EmbeddingConfigRow[];
    return row;
  }

  /** The scope's configuration, locked until the transaction ends. */
  async configForUpdate(em: EntityManager, scope: string): Promise<EmbeddingConfigRow | undefined> {
    const [row] = (await em.query(`${CONFIG_SQL} FOR UPDATE`, [scope])) as EmbeddingConfigRow[];
    return row;
  }

  async configExists(em: EntityManager, scope: string): Promise<boolean> {
    return (
      ((await em.query(`SELECT 1 FROM embedding_configs WHERE scope = $1`, [scope])) as unknown[]).length > 0
    );
  }

  // Reindex runs (embedding_reindex_runs).

  /** Records a batch of the run; fenced on the run id, so a stale worker whose run was replaced writes nothing. */
  async recordReindexBatch(
    em: EntityManager,
    run: { scope: string; itemType: string; runId: string },
    cursor: string,
    done: number,
    failed: number,
    error: string | null,
  ): Promise<void> {
    await em.query(
      `UPDATE embedding_reindex_runs SET cursor = $3, done = done + $4, failed = failed + $5, last_error = COALESCE($6, last_error)
            WHERE scope = $1 AND item_type = $2 AND run_id = $7 AND state = 'running'`,
      [run.scope, run.itemType, cursor, done, failed, error, run.runId],
    );
  }

  /** Takes the lock of `key` until the transaction ends. */
  async lock(em: EntityManager, key: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
  }

  async finishReindexRun(
    em: EntityManager,
    run: { scope: string; itemType: string; runId: string },
    state: 'succeeded' | 'failed',
    error: string | null,
  ): Promise<void> {
    await em.query(
      `UPDATE embedding_reindex_runs SET state = $4, finished_at = now(), last_error = COALESCE($5, last_error)
          WHERE scope = $1 AND item_type = $2 AND run_id = $3 AND state = 'running'`,
      [run.scope, run.itemType, run.runId, state, error],
    );
  }

  // The vector store (item_embeddings).

  async createVectorExtension(em: EntityManager): Promise<void> {
    await em.query('CREATE EXTENSION IF NOT EXISTS vector');
  }

  /** pgvector's installed version; none when the extension is absent. */
  async vectorExtensionVersion(em: EntityManager): Promise<string | undefined> {
    const [row] = (await em.query(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)) as {
      extversion: string;
    }[];
    return row?.extversion;
  }

  async vectorExtensionPresent(em: EntityManager): Promise<boolean> {
    const [row] = (await em.query(`SELECT 1 AS present FROM pg_extension WHERE extname = 'vector'`)) as {
      present: number;
    }[];
    return !!row;
  }

  /** Names of the HNSW indexes on item_embeddings starting with `prefix`. */
  async hnswIndexes(em: EntityManager, prefix: string): Promise<string[]> {
    const rows = (await em.query(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'item_embeddings' AND indexname LIKE $1`,
      [`${prefix}%`],
    )) as { indexname: string }[];
    return rows.map((row) => row.indexname);
  }

  async dropIndex(em: EntityManager, name: string): Promise<void> {
    await em.query(`DROP INDEX IF EXISTS "${name}"`);
  }

  /** A partial HNSW (cosine) index over the vectors of `size` dimensions; `size` is a checked integer. */
  async createHnswIndex(em: EntityManager, name: string, size: number): Promise<void> {
    await em.query(
      `CREATE INDEX IF NOT EXISTS "${name}" ON item_embeddings
             USING hnsw ((embedding::vector(${size})) vector_cosine_ops) WHERE dimensions = ${size}`,
    );
  }

  async contentHashes(
    em: EntityManager,
    itemType: SemanticItemType,
    ids: string[],
    fingerprint: string,
  ): Promise<{ item_id: string; content_hash: string }[]> {
    return (await em.query(
      `SELECT item_id, content_hash FROM item_embeddings
        WHERE item_type = $1 AND item_id = ANY($2::uuid[]) AND fingerprint = $3`,
      [itemType, ids, fingerprint],
    )) as { item_id: string; content_hash: string }[];
  }

  /**
   * Writes vectors unless the item is gone, or a newer read of it was
   * written already (jobs may finish out of order).
   */
  async upsertVectors(
    em: EntityManager,
    itemType: SemanticItemType,
    producer: { dimensions: number; fingerprint: string; indexVersion: string },
    rows: VectorWrite[],
  ): Promise<void> {
    await em.query(
      `INSERT INTO item_embeddings
         (item_type, item_id, space_id, dimensions, fingerprint, embedding, content_hash, index_version,
          source_updated_at, embedded_at)
       SELECT $1, u.item_id, u.space_id, $2, $9, u.embedding::real[], u.content_hash, $3,
              u.source_updated_at, now()
         FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::timestamptz[])
           AS u(item_id, space_id, embedding, content_hash, source_updated_at)
        WHERE ${SOURCE_EXISTS[itemType]}
       ON CONFLICT (item_type, item_id) DO UPDATE SET
         space_id = EXCLUDED.space_id, dimensions = EXCLUDED.dimensions, fingerprint = EXCLUDED.fingerprint,
         embedding = EXCLUDED.embedding, content_hash = EXCLUDED.content_hash,
         index_version = EXCLUDED.index_version, source_updated_at = EXCLUDED.source_updated_at, embedded_at = now()
       WHERE item_embeddings.source_updated_at < EXCLUDED.source_updated_at
          OR item_embeddings.content_hash <> EXCLUDED.content_hash
             AND item_embeddings.source_updated_at = EXCLUDED.source_updated_at
          OR item_embeddings.fingerprint <> EXCLUDED.fingerprint`,
      [
        itemType,
        producer.dimensions,
        producer.indexVersion,
        rows.map((r) => r.itemId),
        rows.map((r) => r.spaceId),
        rows.map((r) => r.embedding),
        rows.map((r) => r.contentHash),
        rows.map((r) => r.sourceUpdatedAt),
        producer.fingerprint,
      ],
    );
  }

  /** Credits vectors stored without a fingerprint to this producer, when the sizes match. */
  async adoptVectors(em: EntityManager, fingerprint: string, dimensions: number): Promise<void> {
    await em.query(`UPDATE item_embeddings SET fingerprint = $1 WHERE fingerprint = '' AND dimensions = $2`, [
      fingerprint,
      dimensions,
    ]);
  }

  async removeVectors(em: EntityManager, itemType: SemanticItemType, ids: string[]): Promise<void> {
    await em.query(`DELETE FROM item_embeddings WHERE item_type = $1 AND item_id = ANY($2::uuid[])`, [
      itemType,
      ids,
    ]);
  }

  async clearVectors(em: EntityManager): Promise<void> {
    await em.query('DELETE FROM item_embeddings');
  }

  /**
   * With pgvector, in the caller's transaction: the `limit` nearest vectors of
   * `size` dimensions to the vector parameter (the last of `params`), through
   * the HNSW index of that size. `params` are $1 types, $2 fingerprint, then
   * the space ids when `spaceFilter` names them.
   */
  async nearestPgvector(
    em: EntityManager,
    size: number,
    limit: number,
    spaceFilter: string,
    params: unknown[],
    iterativeScan: boolean,
  ): Promise<
    { item_type: SemanticItemType; item_id: string; space_id: string; score: number | string | null }[]
  > {
    const q = `$${params.length}::vector(${size})`;
    // The literal size matches the partial index's predicate, so the planner may use it.
    const sql = `SELECT item_type, item_id, space_id, 1 - distance AS score FROM (
          SELECT e.item_type, e.item_id, e.space_id, (e.embedding::vector(${size})) <=> ${q} AS distance
            FROM item_embeddings e
           WHERE e.dimensions = ${size} AND e.fingerprint = $2 AND e.item_type = ANY($1::text[]) ${spaceFilter}
           ORDER BY (e.embedding::vector(${size})) <=> ${q} LIMIT ${limit}) nearest
        ORDER BY distance, item_id`;
    // Filters after an index scan could leave fewer than `limit` rows: let the scan continue.
    if (iterativeScan) await em.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    // A wider search than pgvector's default of 40: the space and type filters drop many of the
    // nearest rows, and near-duplicate vectors (alike products) make the graph harder to walk.
    await em.query(`SET LOCAL hnsw.ef_search = ${Math.max(100, Math.min(1000, limit * 5))}`);
    return (await em.query(sql, params)) as {
      item_type: SemanticItemType;
      item_id: string;
      space_id: string;
      score: number | string | null;
    }[];
  }

  /**
   * Without pgvector: the candidates' vectors (binary), under the filters
   * again. `params` are $1 types, $2 fingerprint, the space ids when
   * `spaceFilter` names them, then the candidates' types and ids.
   */
  async candidateVectors(
    em: EntityManager,
    size: number,
    spaceFilter: string,
    params: unknown[],
  ): Promise<{ item_type: SemanticItemType; item_id: string; space_id: string; embedding: Buffer }[]> {
    return (await em.query(
      `SELECT e.item_type, e.item_id, e.space_id, array_send(e.embedding) AS embedding
         FROM unnest($${params.length - 1}::text[], $${params.length}::uuid[]) AS c(item_type, item_id)
         JOIN item_embeddings e ON e.item_type = c.item_type AND e.item_id = c.item_id
        WHERE e.dimensions = ${size} AND e.fingerprint = $2 AND e.item_type = ANY($1::text[]) ${spaceFilter}`,
      params,
    )) as { item_type: SemanticItemType; item_id: string; space_id: string; embedding: Buffer }[];
  }

  // The vector cache's reads.

  /** The transaction id below which every transaction has ended. */
  async snapshotHorizon(em: EntityManager): Promise<string> {
    const [{ horizon }] = (await em.query(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`,
    )) as {
      horizon: string;
    }[];
    return horizon;
  }

  /** Vectors written after a keyset position (written_xid, item_type, item_id), a page at most. */
  async writtenSince(em: EntityManager, after: [string, string, string]): Promise<WrittenVectorRow[]> {
    return (await em.query(WRITTEN_SINCE, after)) as WrittenVectorRow[];
  }

  /** One statement, one snapshot: the removals, the first page of rows written, the next horizon. */
  async changesSince(em: EntityManager, horizon: string): Promise<VectorChangeRow[]> {
    return (await em.query(
      `SELECT 'removed' AS kind, item_type, item_id, NULL::uuid AS space_id, NULL::bytea AS embedding,
              NULL::text AS fingerprint, NULL::text AS written_xid
         FROM item_embedding_removals WHERE removed_xid >= $1::bigint
       UNION ALL
       (SELECT 'written', e.item_type, e.item_id, e.space_id, array_send(e.embedding), e.fingerprint,
               e.written_xid::text
          FROM item_embeddings e WHERE e.written_xid >= $1::bigint
         ORDER BY e.written_xid, e.item_type, e.item_id LIMIT ${VECTOR_PAGE})
       UNION ALL
       SELECT 'horizon', NULL, NULL, NULL, NULL, NULL, pg_snapshot_xmin(pg_current_snapshot())::text`,
      [horizon],
    )) as VectorChangeRow[];
  }

  /** Forgets removals older than a day. */
  async purgeRemovals(em: EntityManager): Promise<void> {
    await em.query(`DELETE FROM item_embedding_removals WHERE removed_at < now() - interval '1 day'`);
  }
}
