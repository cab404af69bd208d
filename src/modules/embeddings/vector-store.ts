import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SemanticItemType } from './entities/item-embedding.entity';
import { VectorCache, VectorProducer } from './vector-cache';
import { decodeRealArray, dot, l2Normalize, pgvectorLiteral, realArrayLiteral } from './vector-math';

export type { SemanticItemType } from './entities/item-embedding.entity';
export type VectorStoreMode = 'pgvector' | 'real_array';

export interface StoredVector {
  itemId: string;
  spaceId: string;
  vector: number[];
  contentHash: string;
  sourceUpdatedAt: Date;
}

export interface NearestQuery extends VectorProducer {
  vector: number[];
  types: SemanticItemType[];
  spaceIds: string[] | 'all';
  limit: number;
}

export interface NearestRow {
  item_type: SemanticItemType;
  item_id: string;
  space_id: string;
  score: number;
}

const HNSW_PREFIX = 'item_embeddings_hnsw_';
/** `hnsw.iterative_scan` exists from pgvector 0.8; setting it on an older one is an error. */
const ITERATIVE_SCAN_SINCE = '0.8.0';
/**
 * Without pgvector: candidates scored exactly beyond the `limit` the memory
 * index guarantees, should many approximate scores nearly tie.
 */
const EXTRA_EXACT_CANDIDATES = 200;
/** Rows the source must still have for its vector to be written (a deleted or unpublished item is not indexed). */
const SOURCE_EXISTS: Record<SemanticItemType, string> = {
  product: 'EXISTS (SELECT 1 FROM products p WHERE p.id = u.item_id)',
  standard_page: `EXISTS (SELECT 1 FROM standard_pages s WHERE s.id = u.item_id AND s.status = 'published')`,
};

/**
 * Where item vectors live and how the nearest are found. At start it tries
 * `CREATE EXTENSION vector`: with pgvector, a partial HNSW index (cosine)
 * over `embedding::vector(n)` per dimension count answers nearest-neighbour
 * queries; without it (PostgreSQL servers without the package), an exact
 * cosine (a dot product: vectors are unit length) over the `real[]` column,
 * on candidates that an in-process index of the same vectors proposes
 * (see VectorCache and MemoryVectorIndex): the exact best are among them.
 */
@Injectable()
export class VectorStore implements OnModuleInit {
  private readonly logger = new Logger(VectorStore.name);
  private detected: VectorStoreMode = 'real_array';
  private iterativeScan = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cache: VectorCache,
  ) {}

  get mode(): VectorStoreMode {
    return this.detected;
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.dataSource.query('CREATE EXTENSION IF NOT EXISTS vector');
      this.detected = 'pgvector';
    } catch (error) {
      // Another replica may have created it at the same moment; or we lack the right but it is there.
      const [row] = (await this.dataSource.query(
        `SELECT 1 AS present FROM pg_extension WHERE extname = 'vector'`,
      )) as { present: number }[];
      this.detected = row ? 'pgvector' : 'real_array';
      if (!row) {
        this.logger.log(
          `pgvector is not available (${error instanceof Error ? error.message : String(error)}): ` +
            'semantic search computes exact cosine over real[] vectors.',
        );
      }
    }
    if (this.detected !== 'pgvector') return;
    const [{ extversion }] = (await this.dataSource.query(
      `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
    )) as { extversion: string }[];
    this.iterativeScan = versionAtLeast(extversion, ITERATIVE_SCAN_SINCE);
    if (!this.iterativeScan) {
      this.logger.warn(
        `pgvector ${extversion} has no iterative index scans (0.8 or later): a nearest query filtered by ` +
          'space or type may answer fewer items than asked for.',
      );
    }
  }

  /**
   * With pgvector: the HNSW index for this size exists and those for other
   * sizes are gone. Under a transaction-scoped lock, so that workers starting
   * together do not build the same index twice.
   */
  async ensureIndex(dimensions: number): Promise<void> {
    if (this.detected !== 'pgvector') return;
    const size = checkedDimensions(dimensions);
    const wanted = `${HNSW_PREFIX}${size}`;
    await this.dataSource.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('item_embeddings_hnsw'))`);
      const existing = (await em.query(
        `SELECT indexname FROM pg_indexes WHERE tablename = 'item_embeddings' AND indexname LIKE $1`,
        [`${HNSW_PREFIX}%`],
      )) as { indexname: string }[];
      for (const { indexname } of existing) {
        if (indexname !== wanted) await em.query(`DROP INDEX IF EXISTS "${indexname}"`);
      }
      if (!existing.some((row) => row.indexname === wanted)) {
        await em.query(
          `CREATE INDEX IF NOT EXISTS "${wanted}" ON item_embeddings
             USING hnsw ((embedding::vector(${size})) vector_cosine_ops) WHERE dimensions = ${size}`,
        );
      }
    });
  }

  /** Without pgvector: loads the producer's vectors into memory in the background, so the first search need not. */
  warm(producer: VectorProducer): void {
    if (this.detected !== 'real_array') return;
    checkedDimensions(producer.dimensions);
    this.cache.current(producer).catch((error: unknown) => {
      this.logger.warn(
        `Loading the vectors failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  /** Content hashes of the stored vectors this producer made, by item id (others are to be made again). */
  async hashes(em: EntityManager, itemType: SemanticItemType, ids: string[], producer: VectorProducer) {
    const rows = (await em.query(
      `SELECT item_id, content_hash FROM item_embeddings
        WHERE item_type = $1 AND item_id = ANY($2::uuid[]) AND fingerprint = $3`,
      [itemType, ids, producer.fingerprint],
    )) as { item_id: string; content_hash: string }[];
    return new Map(rows.map((r) => [r.item_id, r.content_hash]));
  }

  /**
   * Writes vectors unless the item is gone, or a newer read of it was
   * written already (jobs may finish out of order).
   */
  async upsert(
    em: EntityManager,
    itemType: SemanticItemType,
    producer: VectorProducer & { indexVersion: string },
    rows: StoredVector[],
  ): Promise<void> {
    if (!rows.length) return;
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
        rows.map((r) => realArrayLiteral(r.vector)),
        rows.map((r) => r.contentHash),
        rows.map((r) => r.sourceUpdatedAt),
        producer.fingerprint,
      ],
    );
  }

  /**
   * Credits vectors stored before vectors named their producer (an empty
   * fingerprint) to this one, when the sizes match. Only for the deployment
   * database: its vectors were dropped at every change of its configuration,
   * while an instance's may predate a change of the global one.
   */
  async adopt(producer: VectorProducer): Promise<void> {
    await this.dataSource.query(
      `UPDATE item_embeddings SET fingerprint = $1 WHERE fingerprint = '' AND dimensions = $2`,
      [producer.fingerprint, producer.dimensions],
    );
  }

  async remove(em: EntityManager, itemType: SemanticItemType, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await em.query(`DELETE FROM item_embeddings WHERE item_type = $1 AND item_id = ANY($2::uuid[])`, [
      itemType,
      ids,
    ]);
  }

  /** Drops every vector: they were made by another provider, model or size. */
  async clear(em: EntityManager): Promise<void> {
    await em.query('DELETE FROM item_embeddings');
  }

  async nearest(query: NearestQuery): Promise<NearestRow[]> {
    if (!query.types.length || (query.spaceIds !== 'all' && !query.spaceIds.length) || query.limit < 1)
      return [];
    if (query.vector.length !== query.dimensions) return [];
    const size = checkedDimensions(query.dimensions);
    const limit = Math.min(Math.floor(query.limit), 1000);
    const vector = l2Normalize(query.vector);
    const params: unknown[] = [query.types, query.fingerprint];
    let spaceFilter = '';
    if (query.spaceIds !== 'all') {
      params.push(query.spaceIds);
      spaceFilter = `AND e.space_id = ANY($${params.length}::uuid[])`;
    }
    if (this.detected === 'pgvector') {
      params.push(pgvectorLiteral(vector));
      const q = `$${params.length}::vector(${size})`;
      // The literal size matches the partial index's predicate, so the planner may use it.
      const sql = `SELECT item_type, item_id, space_id, 1 - distance AS score FROM (
          SELECT e.item_type, e.item_id, e.space_id, (e.embedding::vector(${size})) <=> ${q} AS distance
            FROM item_embeddings e
           WHERE e.dimensions = ${size} AND e.fingerprint = $2 AND e.item_type = ANY($1::text[]) ${spaceFilter}
           ORDER BY (e.embedding::vector(${size})) <=> ${q} LIMIT ${limit}) nearest
        ORDER BY distance, item_id`;
      return this.dataSource.transaction(async (em) => {
        // Filters after an index scan could leave fewer than `limit` rows: let the scan continue.
        if (this.iterativeScan) await em.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
        // A wider search than pgvector's default of 40: the space and type filters drop many of the
        // nearest rows, and near-duplicate vectors (alike products) make the graph harder to walk.
        await em.query(`SET LOCAL hnsw.ef_search = ${Math.max(100, Math.min(1000, limit * 5))}`);
        return toRows(await em.query(sql, params));
      });
    }
    const index = await this.cache.current({ dimensions: size, fingerprint: query.fingerprint });
    const candidates = index.candidates({
      vector,
      types: query.types,
      spaceIds: query.spaceIds,
      limit,
      maxCandidates: limit + EXTRA_EXACT_CANDIDATES,
    });
    if (!candidates.length) return [];
    params.push(
      candidates.map((c) => c.type),
      candidates.map((c) => c.id),
    );
    // The filters again: the memory may trail a change of space by one read.
    const rows = (await this.dataSource.query(
      `SELECT e.item_type, e.item_id, e.space_id, array_send(e.embedding) AS embedding
         FROM unnest($${params.length - 1}::text[], $${params.length}::uuid[]) AS c(item_type, item_id)
         JOIN item_embeddings e ON e.item_type = c.item_type AND e.item_id = c.item_id
        WHERE e.dimensions = ${size} AND e.fingerprint = $2 AND e.item_type = ANY($1::text[]) ${spaceFilter}`,
      params,
    )) as Array<Omit<NearestRow, 'score'> & { embedding: Buffer }>;
    return rows
      .map(({ embedding, ...row }) => ({ ...row, score: dot(decodeRealArray(embedding), vector) }))
      .sort((a, b) => b.score - a.score || (a.item_id < b.item_id ? -1 : 1))
      .slice(0, limit);
  }
}

function toRows(rows: Array<Omit<NearestRow, 'score'> & { score: number | string | null }>): NearestRow[] {
  return rows.map((row) => ({ ...row, score: Number(row.score ?? 0) }));
}

/** Dimensions go into SQL text (type modifiers and index predicates take no parameters): integers only. */
function checkedDimensions(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new Error(`Invalid vector size ${dimensions}.`);
  }
  return dimensions;
}

/** Whether a dotted version (`0.7.4`, `0.8.0`) is at least `minimum`; missing parts count as 0. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (text: string) => text.split('.').map((part) => parseInt(part, 10) || 0);
  const have = parts(version);
  const want = parts(minimum);
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    const diff = (have[i] ?? 0) - (want[i] ?? 0);
    if (diff) return diff > 0;
  }
  return true;
}
