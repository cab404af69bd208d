import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InstanceContext } from '../../database/instance-context';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { MemoryVectorIndex } from './memory-vector-index';
import { EmbeddingQueries, VECTOR_PAGE, WrittenVectorRow } from './embeddings.queries';
import { decodeRealArray } from './vector-math';

/** Rows read per statement: a load, or a large change, keeps bounded memory. */
/** A process that has not followed the changes for this long reloads whole: older removals are purged. */
const MAX_FOLLOW_GAP_MS = 12 * 3_600_000;
const PURGE_JOB = 'embeddings.purge-removals';
/**
 * How often a loaded copy reads what changed without waiting for a query: a
 * reindex writes many thousands of vectors, which the first search after it
 * would otherwise read (and every search arriving meanwhile wait for).
 */
const BACKGROUND_FOLLOW_MS = 1_000;

/** The embedder whose vectors a call reads or writes: its size, and its `fingerprintOf`. */
export interface VectorProducer {
  dimensions: number;
  fingerprint: string;
}

/**
 * The item vectors of the configured producer in process memory, for nearest
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
class InstanceVectors {
  private index: MemoryVectorIndex | null = null;
  /** The producer whose vectors the index holds: rows of another are left out (or taken out). */
  private fingerprint = '';
  private horizon = '0';
  private followedAt = 0;
  private loading: { fingerprint: string; loaded: Promise<MemoryVectorIndex> } | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  /** The routing DataSource: it reaches the database of the instance whose work calls. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly queries: EmbeddingQueries,
  ) {}

  async current(producer: VectorProducer): Promise<MemoryVectorIndex> {
    const stale = Date.now() - this.followedAt > MAX_FOLLOW_GAP_MS;
    if (this.index && this.fingerprint === producer.fingerprint && !stale) {
      await this.follow();
      return this.index;
    }
    if (!this.loading || this.loading.fingerprint !== producer.fingerprint) {
      const loaded = this.load(producer);
      const done = () => {
        if (this.loading?.loaded === loaded) this.loading = null;
      };
      void loaded.then(done, done);
      this.loading = { fingerprint: producer.fingerprint, loaded };
    }
    return this.loading.loaded;
  }

  /** The copy as it stands, without reading the changes; null before its first load. */
  get loaded(): MemoryVectorIndex | null {
    return this.index;
  }

  /** Reads the changes of a loaded copy, unless a read is under way (its callers are served by it). */
  followInBackground(): Promise<void> {
    if (!this.index || this.running) return Promise.resolve();
    return this.follow();
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

  private async load({ dimensions, fingerprint }: VectorProducer): Promise<MemoryVectorIndex> {
    const startedAt = Date.now();
    const horizon = await this.queries.snapshotHorizon(this.dataSource.manager);
    const index = new MemoryVectorIndex(dimensions);
    await this.readWritten(index, fingerprint, ['-1', '', '00000000-0000-0000-0000-000000000000']);
    this.index = index;
    this.fingerprint = fingerprint;
    this.horizon = horizon;
    this.followedAt = startedAt;
    // Rows written while the pages were read.
    await this.follow();
    return index;
  }

  private async readChanges(): Promise<void> {
    const { index, fingerprint } = this;
    if (!index) return;
    const startedAt = Date.now();
    // One statement, one snapshot: the removals, the first page of rows written, the next horizon.
    const rows = await this.queries.changesSince(this.dataSource.manager, this.horizon);
    // Removals first: a row removed, then written again, is written as it is now.
    for (const row of rows) if (row.kind === 'removed') index.remove(row.item_type, row.item_id);
    const written = rows.filter((row) => row.kind === 'written');
    this.apply(index, fingerprint, written);
    if (written.length === VECTOR_PAGE) {
      const last = written[written.length - 1];
      await this.readWritten(index, fingerprint, [last.written_xid, last.item_type, last.item_id]);
    }
    // A load that replaced the index meanwhile keeps its own horizon.
    if (this.index !== index) return;
    this.horizon = rows.find((row) => row.kind === 'horizon')!.written_xid;
    this.followedAt = startedAt;
  }

  /** Pages through the rows written after a keyset position; rows rewritten meanwhile move ahead and come again. */
  private async readWritten(
    index: MemoryVectorIndex,
    fingerprint: string,
    after: [string, string, string],
  ): Promise<void> {
    for (;;) {
      const rows = await this.queries.writtenSince(this.dataSource.manager, after);
      this.apply(index, fingerprint, rows);
      if (rows.length < VECTOR_PAGE) return;
      const last = rows[rows.length - 1];
      after = [last.written_xid, last.item_type, last.item_id];
    }
  }

  private apply(index: MemoryVectorIndex, fingerprint: string, rows: WrittenVectorRow[]): void {
    for (const row of rows) {
      // A vector rewritten by another producer leaves the index, as a removed one does.
      if (row.fingerprint !== fingerprint) index.remove(row.item_type, row.item_id);
      else index.upsert(row.item_type, row.item_id, row.space_id, decodeRealArray(row.embedding));
    }
  }
}

/**
 * One copy per instance: each instance has its own database, its own
 * vectors and its own transaction ids. Work on an instance (a request, a
 * job) reaches that instance's copy.
 */
@Injectable()
export class VectorCache implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VectorCache.name);
  private readonly instances = new Map<string, InstanceVectors>();
  private timer: NodeJS.Timeout | null = null;
  private following = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
    private readonly databases: InstanceDatabases,
    private readonly queries: EmbeddingQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(PURGE_JOB, () => this.purgeRemovals());
    this.jobs.registerCron(PURGE_JOB, '41 * * * *', PURGE_JOB);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.followLoaded(), BACKGROUND_FOLLOW_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The current instance's copy as it stands (no read of the changes); null before its first load. */
  loaded(): MemoryVectorIndex | null {
    return this.instances.get(InstanceContext.instanceId())?.loaded ?? null;
  }

  /** Every loaded copy reads what changed, one instance after the other; copies not loaded stay so. */
  private async followLoaded(): Promise<void> {
    if (this.following || !this.instances.size) return;
    this.following = true;
    const failed = (instanceId: string, error: unknown) =>
      this.logger.warn(
        `Following the vectors of instance ${instanceId} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    try {
      await this.databases.eachInstance(
        () => this.instances.get(InstanceContext.instanceId())?.followInBackground() ?? Promise.resolve(),
        failed,
      );
    } catch (error) {
      failed(InstanceContext.instanceId(), error);
    } finally {
      this.following = false;
    }
  }

  /** The current instance's index of this producer's vectors, current as of a read started after this call. */
  current(producer: VectorProducer): Promise<MemoryVectorIndex> {
    const instanceId = InstanceContext.instanceId();
    let vectors = this.instances.get(instanceId);
    if (!vectors) {
      vectors = new InstanceVectors(this.dataSource, this.queries);
      this.instances.set(instanceId, vectors);
    }
    return vectors.current(producer);
  }

  /** Removals are kept a day: longer than any process follows without reloading (see MAX_FOLLOW_GAP_MS). */
  async purgeRemovals(): Promise<void> {
    await this.queries.purgeRemovals(this.dataSource.manager);
  }
}
