import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { SerialTask } from '../../platform/jobs/serial-task';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import { BatchContext, OpenLineageApplier } from './openlineage-applier.service';
import { OPENLINEAGE_TOPIC } from './openlineage-ingest.service';
import { OpenLineageQueries } from './openlineage.queries';

const BATCH = 200;
const POLL_MS = 1_000;
/**
 * A wakeup starts a pass this much later, so that under load events are
 * applied in batches rather than a few at a time (a batch reads what it
 * needs once); at rest it is most of the lag until an event is readable.
 */
const COALESCE_MS = 250;
const MAX_ATTEMPTS = 5;
const DAY_MS = 86_400_000;

/**
 * Applies stored OpenLineage events in the background: woken after each
 * ingestion commits (and by a poll), it claims the oldest pending events by
 * event time with FOR UPDATE SKIP LOCKED (one processor per database at a
 * time, by an advisory lock) and applies a batch in one transaction that also marks it processed, so a
 * crash anywhere rolls the batch back for another pass: an acknowledged
 * event is never lost, and its effects exist once. One event failing is set
 * aside (its savepoint rolled back) and retried, up to MAX_ATTEMPTS, by later
 * passes.
 */
@Injectable()
export class OpenLineageProcessor implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OpenLineageProcessor.name);
  private timer: NodeJS.Timeout | null = null;
  private soon: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  private readonly loop = new SerialTask(
    () => this.processAll(),
    (error) => this.logger.error(`OpenLineage processing failed: ${String(error)}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tx: TransactionRunner,
    private readonly wakeup: Wakeup,
    private readonly databases: InstanceDatabases,
    private readonly jobs: JobRunner,
    private readonly queries: OpenLineageQueries,
    private readonly applier: OpenLineageApplier,
  ) {}

  onModuleInit(): void {
    this.jobs.register('openlineage.prune-events', () => this.prune());
    this.jobs.registerCron('openlineage.prune-events', '17 * * * *', 'openlineage.prune-events');
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.wakeup.on(OPENLINEAGE_TOPIC, () => this.kickSoon());
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    await this.loop.stop();
  }

  kick(): void {
    this.loop.kick();
  }

  private kickSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      this.kick();
    }, COALESCE_MS);
    this.soon.unref();
  }

  /** Applies until no event is pending (tests and tooling). */
  async drain(): Promise<void> {
    await this.loop.idle();
    await this.processAll();
    // A pass the wakeup started meanwhile may hold the processor lock this one could not take: wait for it.
    await this.loop.idle();
  }

  private async processAll(): Promise<void> {
    await this.databases.eachInstance(
      async () => {
        while (!this.stopped && (await this.processBatch()) === BATCH);
      },
      (instanceId, error) =>
        this.logger.error(`OpenLineage processing failed on instance ${instanceId}: ${String(error)}`),
    );
  }

  /**
   * Answers how many events were claimed. A batch is first applied whole;
   * if an event fails, the batch is rolled back and applied again with a
   * savepoint per event, so that only the failing one is set aside.
   */
  async processBatch(): Promise<number> {
    try {
      return await this.tx.run((em) => this.applyBatch(em, false));
    } catch (error) {
      this.logger.warn(`OpenLineage batch failed, applying its events one by one: ${String(error)}`);
      return this.tx.run((em) => this.applyBatch(em, true));
    }
  }

  private async applyBatch(em: EntityManager, eventByEvent: boolean): Promise<number> {
    // One processor at a time per database: events of a space apply in event-time order, and two
    // processors would lock the same products and lineage in different orders (deadlocks).
    if (!(await this.queries.tryLockProcessor(em))) return 0;
    const rows = await this.queries.claimPending(em, BATCH);
    const done: { id: string; outcome: object | null }[] = [];
    let batch = new BatchContext(rows, !eventByEvent);
    for (const row of rows) {
      if (!eventByEvent) {
        done.push({ id: row.id, outcome: await this.applier.apply(em, row, batch) });
        continue;
      }
      await this.queries.savepoint(em);
      try {
        const outcome = await this.applier.apply(em, row, batch);
        await this.queries.releaseSavepoint(em);
        done.push({ id: row.id, outcome });
      } catch (error) {
        await this.queries.rollbackToSavepoint(em);
        // What the batch had learnt may include the rolled-back writes.
        batch = new BatchContext(rows);
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
        const attempts = row.attempts + 1;
        const givingUp = attempts >= MAX_ATTEMPTS;
        this.logger.error(
          `OpenLineage event ${row.id} failed (attempt ${attempts}${givingUp ? ', giving up' : ''}): ${message}`,
        );
        await this.queries.recordFailure(em, row.id, attempts, message, givingUp);
      }
    }
    await this.applier.finishBatch(em, batch);
    await this.queries.markProcessed(em, done);
    return rows.length;
  }

  private async prune(): Promise<void> {
    const before = new Date(Date.now() - this.config.openLineageRetentionDays * DAY_MS);
    await this.tx.run((em) => this.queries.prune(em, before));
  }
}
