import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import type { SemanticItemType } from './entities/item-embedding.entity';
import { MemoryVectorIndex } from './memory-vector-index';

const LOAD_BATCH = 5_000;
/** A process that has not followed the changes for this long reloads whole: older removals are purged. */
const MAX_FOLLOW_GAP_MS = 12 * 3_600_000;
const PURGE_JOB = 'embeddings.purge-removals';

interface VectorRow {
  item_type: SemanticItemType;
  item_id: string;
  space_id: string;
  dimensions: number;
  embedding: number[];
}

interface ChangeRow extends VectorRow {
  removed: boolean;
  horizon: string | null;
}

/**
 * The item vectors of the configured size in process memory, for nearest
 * queries without pgvector. Loaded once, then kept current before each
 * query by reading what changed since the last read.
 *
 * "Since" is a transaction-id horizon, not a clock: every row carries the id
 * of the transaction that wrote it (`written_xid`, removals alike), and a
 * read asks for ids at or above the oldest transaction still running at the
 * previous read (`pg_snapshot_xmin`). A transaction that commits late is
 * therefore never skipped; the few rows of transactions running at the
 * previous read are read again, harmlessly.
 */
@Injectable()
export class VectorCache implements OnModuleInit {
  private index: MemoryVectorIndex | null = null;
  private horizon = '0';
  private followedAt = 0;
  private loading: { dimensions: number; loaded: Promise<MemoryVectorIndex> } | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.register(PURGE_JOB, () => this.purgeRemovals());
    this.jobs.registerCron(PURGE_JOB, '41 * * * *', PURGE_JOB);
  }

  /** The index of this size, current as of a read started after this call. */
  async current(dimensions: number): Promise<MemoryVectorIndex> {
    const stale = Date.now() - this.followedAt > MAX_FOLLOW_GAP_MS;
    if (this.index?.dimensions === dimensions && !stale) {
      await this.follow();
      return this.index;
    }
    if (!this.loading || this.loading.dimensions !== dimensions) {
      const loaded = this.load(dimensions);
      const done = () => {
        if (this.loading?.loaded === loaded) this.loading = null;
      };
      void loaded.then(done, done);
      this.loading = { dimensions, loaded };
    }
    return this.loading.loaded;
  }

  /** Removals are kept a day: longer than any process follows without reloading (see MAX_FOLLOW_GAP_MS). */
  async purgeRemovals(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM item_embedding_removals WHERE removed_at < now() - interval '1 day'`,
    );
  }

  /**
   * One change read at a time; a caller arriving while one runs waits for
   * the next, which starts after it and so sees every commit before the call.
   */
  private follow(): Promise<void> {
    if (!this.running) {
      this.running = this.readChanges().finally(() => (this.running = null));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.follow();
      });
    return this.queued;
  }

  private async load(dimensions: number): Promise<MemoryVectorIndex> {
    const startedAt = Date.now();
    const [{ horizon }] = (await this.dataSource.query(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`,
    )) as { horizon: string }[];
    const index = new MemoryVectorIndex(dimensions);
    // Keyset batches keep the memory of a load bounded; rows written meanwhile come with the first change read.
    let after: [string, string] = ['', '00000000-0000-0000-0000-000000000000'];
    for (;;) {
      const rows = (await this.dataSource.query(
        `SELECT item_type, item_id, space_id, dimensions, embedding FROM item_embeddings
          WHERE dimensions = $1 AND (item_type, item_id) > ($2, $3::uuid)
          ORDER BY item_type, item_id LIMIT ${LOAD_BATCH}`,
        [dimensions, ...after],
      )) as VectorRow[];
      for (const row of rows) index.upsert(row.item_type, row.item_id, row.space_id, row.embedding);
      if (rows.length < LOAD_BATCH) break;
      const last = rows[rows.length - 1];
      after = [last.item_type, last.item_id];
    }
    this.index = index;
    this.horizon = horizon;
    this.followedAt = startedAt;
    await this.follow();
    return index;
  }

  private async readChanges(): Promise<void> {
    const index = this.index;
    if (!index) return;
    const startedAt = Date.now();
    // One statement, one snapshot: the removals, then the rows as they are now, then the next horizon.
    const rows = (await this.dataSource.query(
      `SELECT true AS removed, item_type, item_id, NULL::uuid AS space_id, NULL::int AS dimensions,
              NULL::real[] AS embedding, NULL AS horizon
         FROM item_embedding_removals WHERE removed_xid >= $1::bigint
       UNION ALL
       SELECT false, item_type, item_id, space_id, dimensions, embedding, NULL
         FROM item_embeddings WHERE written_xid >= $1::bigint
       UNION ALL
       SELECT NULL, NULL, NULL, NULL, NULL, NULL, pg_snapshot_xmin(pg_current_snapshot())::text`,
      [this.horizon],
    )) as ChangeRow[];
    for (const row of rows) {
      if (row.horizon !== null) this.horizon = row.horizon;
      else if (row.removed) index.remove(row.item_type, row.item_id);
    }
    for (const row of rows) {
      if (row.removed === false) index.upsert(row.item_type, row.item_id, row.space_id, row.embedding);
    }
    this.followedAt = startedAt;
  }
}
