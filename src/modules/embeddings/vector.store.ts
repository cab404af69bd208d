import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SemanticItemType } from './entities/item-embedding.entity';
import { EmbeddingQueries } from './embeddings.queries';
import { VectorCache, VectorProducer } from './vector.cache';
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
    private readonly queries: EmbeddingQueries,
  ) {}

  get mode(): VectorStoreMode {
    return this.detected;
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.queries.createVectorExtension(this.dataSource.manager);
      this.detected = 'pgvector';
    } catch (error) {
      // Another replica may have created it at the same moment; or we lack the right but it is there.
      const present = await this.queries.vectorExtensionPresent(this.dataSource.manager);
      this.detected = present ? 'pgvector' : 'real_array';
      if (!present) {
        this.logger.log(
          `pgvector is not available (${error instanceof Error ? error.message : String(error)}): ` +
            'semantic search computes exact cosine over real[] vectors.',
        );
      }
    }
    if (this.detected !== 'pgvector') return;
    const extversion = (await this.queries.vectorExtensionVersion(this.dataSource.manager))!;
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
      await this.queries.lock(em, 'item_embeddings_hnsw');
      const existing = await this.queries.hnswIndexes(em, HNSW_PREFIX);
      for (const indexname of existing) {
        if (indexname !== wanted) await this.queries.dropIndex(em, indexname);
      }
      if (!existing.includes(wanted)) await this.queries.createHnswIndex(em, wanted, size);
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
    const rows = await this.queries.contentHashes(em, itemType, ids, producer.fingerprint);
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
    await this.queries.upsertVectors(
      em,
      itemType,
      producer,
      rows.map((r) => ({
        itemId: r.itemId,
        spaceId: r.spaceId,
        embedding: realArrayLiteral(r.vector),
        contentHash: r.contentHash,
        sourceUpdatedAt: r.sourceUpdatedAt,
      })),
    );
  }

  /**
   * Credits vectors stored before vectors named their producer (an empty
   * fingerprint) to this one, when the sizes match. Only for the deployment
   * database: its vectors were dropped at every change of its configuration,
   * while an instance's may predate a change of the global one.
   */
  async adopt(producer: VectorProducer): Promise<void> {
    await this.queries.adoptVectors(this.dataSource.manager, producer.fingerprint, producer.dimensions);
  }

  async remove(em: EntityManager, itemType: SemanticItemType, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.queries.removeVectors(em, itemType, ids);
  }

  /** Drops every vector: they were made by another provider, model or size. */
  async clear(em: EntityManager): Promise<void> {
    await this.queries.clearVectors(em);
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
      return this.dataSource.transaction(async (em) =>
        toRows(await this.queries.nearestPgvector(em, size, limit, spaceFilter, params, this.iterativeScan)),
      );
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
    const rows = await this.queries.candidateVectors(this.dataSource.manager, size, spaceFilter, params);
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
