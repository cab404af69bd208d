import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { l2Normalize, pgvectorLiteral, realArrayLiteral, signatureBits } from './vector-math';

export type VectorStoreMode = 'pgvector' | 'real_array';
export type SemanticItemType = 'product' | 'standard_page';

export interface StoredVector {
  itemId: string;
  spaceId: string;
  vector: number[];
  contentHash: string;
  sourceUpdatedAt: Date;
}

export interface NearestQuery {
  vector: number[];
  dimensions: number;
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
/**
 * Without pgvector: at least this many candidates (and 20 per result asked
 * for) get the exact cosine. Fewer candidates than that after the filters
 * means every one of them does, so small spaces are searched exactly.
 */
const MIN_EXACT_CANDIDATES = 400;
const EXACT_CANDIDATES_PER_RESULT = 20;
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
 * on the candidates the query's filters leave (space, type, size).
 */
@Injectable()
export class VectorStore implements OnModuleInit {
  private readonly logger = new Logger(VectorStore.name);
  private detected: VectorStoreMode = 'real_array';

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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

  /** Content hashes of the stored vectors of this size, by item id. */
  async hashes(em: EntityManager, itemType: SemanticItemType, ids: string[], dimensions: number) {
    const rows = (await em.query(
      `SELECT item_id, content_hash FROM item_embeddings
        WHERE item_type = $1 AND item_id = ANY($2::uuid[]) AND dimensions = $3`,
      [itemType, ids, dimensions],
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
    dimensions: number,
    indexVersion: string,
    rows: StoredVector[],
  ): Promise<void> {
    if (!rows.length) return;
    await em.query(
      `INSERT INTO item_embeddings
         (item_type, item_id, space_id, dimensions, embedding, signature, content_hash, index_version,
          source_updated_at, embedded_at)
       SELECT $1, u.item_id, u.space_id, $2, u.embedding::real[], u.signature::bit varying, u.content_hash, $3,
              u.source_updated_at, now()
         FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::timestamptz[], $9::text[])
           AS u(item_id, space_id, embedding, content_hash, source_updated_at, signature)
        WHERE ${SOURCE_EXISTS[itemType]}
       ON CONFLICT (item_type, item_id) DO UPDATE SET
         space_id = EXCLUDED.space_id, dimensions = EXCLUDED.dimensions, embedding = EXCLUDED.embedding,
         signature = EXCLUDED.signature, content_hash = EXCLUDED.content_hash, index_version = EXCLUDED.index_version,
         source_updated_at = EXCLUDED.source_updated_at, embedded_at = now()
       WHERE item_embeddings.source_updated_at < EXCLUDED.source_updated_at
          OR item_embeddings.content_hash <> EXCLUDED.content_hash
             AND item_embeddings.source_updated_at = EXCLUDED.source_updated_at
          OR item_embeddings.dimensions <> EXCLUDED.dimensions`,
      [
        itemType,
        dimensions,
        indexVersion,
        rows.map((r) => r.itemId),
        rows.map((r) => r.spaceId),
        rows.map((r) => realArrayLiteral(r.vector)),
        rows.map((r) => r.contentHash),
        rows.map((r) => r.sourceUpdatedAt),
        rows.map((r) => signatureBits(r.vector)),
      ],
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
    const params: unknown[] = [query.types];
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
           WHERE e.dimensions = ${size} AND e.item_type = ANY($1::text[]) ${spaceFilter}
           ORDER BY (e.embedding::vector(${size})) <=> ${q} LIMIT ${limit}) nearest
        ORDER BY distance, item_id`;
      return this.dataSource.transaction(async (em) => {
        // Filters after an index scan could leave fewer than `limit` rows: let the scan continue.
        await em.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
        await em.query(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, limit * 2))}`);
        return toRows(await em.query(sql, params));
      });
    }
    const signature = signatureBits(vector);
    // The same bits with the positive and negative halves swapped: where a candidate disagrees in sign.
    const flipped = signature.slice(size) + signature.slice(0, size);
    params.push(signature, flipped, realArrayLiteral(vector));
    const [agree, disagree, exact] = [params.length - 2, params.length - 1, params.length];
    const candidates = Math.max(MIN_EXACT_CANDIDATES, limit * EXACT_CANDIDATES_PER_RESULT);
    // Ranked by sign agreement on the query's non-zero components (a binary dot product) from the
    // covering index alone, then the exact cosine on the closest candidates.
    const sql = `SELECT c.item_type, c.item_id, c.space_id,
        (SELECT sum(a::float8 * b) FROM unnest(e.embedding, $${exact}::real[]) AS t(a, b)) AS score
        FROM (SELECT e.item_type, e.item_id, e.space_id FROM item_embeddings e
               WHERE e.dimensions = ${size} AND e.item_type = ANY($1::text[]) ${spaceFilter}
               ORDER BY bit_count(e.signature & $${agree}::bit varying)
                        - bit_count(e.signature & $${disagree}::bit varying) DESC, e.item_id
               LIMIT ${candidates}) c
        JOIN item_embeddings e ON e.item_type = c.item_type AND e.item_id = c.item_id
       ORDER BY score DESC NULLS LAST, c.item_id LIMIT ${limit}`;
    return toRows(await this.dataSource.query(sql, params));
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
