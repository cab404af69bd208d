import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { SerialTask } from '../jobs/serial-task';
import { Wakeup } from '../jobs/wakeup.service';
import { DomainEventMap, DomainEventType, isDomainEventType } from './event-map';

export interface DispatchedEvent<T extends DomainEventType = DomainEventType> {
  id: string;
  type: T;
  spaceId: string | null;
  actorId: string | null;
  data: DomainEventMap[T];
  occurredAt: Date;
}

/** A consumer writes its effects through `em`, in the transaction that marks the event published. */
export type OutboxConsumer<T extends DomainEventType = DomainEventType> = (
  event: DispatchedEvent<T>,
  em: EntityManager,
) => Promise<void>;

/**
 * A consumer of a whole batch: called once per dispatched batch with its
 * matching events (in order), so that N events cost it one round of
 * statements instead of N.
 */
export type OutboxBatchConsumer<T extends DomainEventType = DomainEventType> = (
  events: DispatchedEvent<T>[],
  em: EntityManager,
) => Promise<void>;

interface Subscription {
  name: string;
  matches: (type: string) => boolean;
  consumer: OutboxConsumer<never>;
}

interface BatchSubscription {
  name: string;
  matches: (type: string) => boolean;
  consumer: OutboxBatchConsumer<never>;
}

interface EventRow {
  id: string;
  type: string;
  space_id: string | null;
  actor_id: string | null;
  payload: object;
  occurred_at: Date;
  attempts: number;
}

const BATCH = 100;
const POLL_MS = 1_000;
const MAX_ATTEMPTS = 10;

/**
 * Delivers outbox events to the registered consumers. A batch is claimed
 * with FOR UPDATE SKIP LOCKED (replicas share the work); the consumers run
 * under a savepoint in the claiming transaction (one for the batch, one per
 * event after a failure), which also marks the events published. So their effects (notifications, webhook
 * deliveries) exist exactly once, and a crash anywhere rolls the batch back
 * for another dispatcher to redo.
 */
@Injectable()
export class OutboxDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxDispatcher.name);
  private readonly subscriptions: Subscription[] = [];
  private readonly batchSubscriptions: BatchSubscription[] = [];
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly loop = new SerialTask(
    () => this.dispatchAll(),
    (error) => this.logger.error(`Outbox dispatch failed: ${String(error)}`),
  );
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly wakeup: Wakeup,
    private readonly databases: InstanceDatabases,
  ) {}

  /** Registers a consumer for one event type, a `<resource>.*` family, or `*`. Unknown names fail the boot. */
  on<T extends DomainEventType>(pattern: T, name: string, consumer: OutboxConsumer<T>): void;
  on(pattern: `${string}.*` | '*', name: string, consumer: OutboxConsumer): void;
  on(pattern: string, name: string, consumer: OutboxConsumer<never>): void {
    this.subscriptions.push({ name, matches: matcherOf(pattern, name), consumer });
  }

  /**
   * Registers a consumer of whole batches for one or more event types (or
   * families, or `*`): it runs after the per-event consumers, once per batch
   * with the batch's matching events, under the same savepoint; after a
   * failure, when the batch is redone event by event, once per event.
   */
  onBatch<T extends DomainEventType>(
    patterns: readonly T[],
    name: string,
    consumer: OutboxBatchConsumer<T>,
  ): void;
  onBatch(patterns: readonly ['*'], name: string, consumer: OutboxBatchConsumer): void;
  onBatch(patterns: readonly string[], name: string, consumer: OutboxBatchConsumer<never>): void {
    const matchers = patterns.map((pattern) => matcherOf(pattern, name));
    this.batchSubscriptions.push({ name, matches: (type) => matchers.some((m) => m(type)), consumer });
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.wakeup.on('outbox', () => this.kick());
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.loop.stop();
  }

  kick(): void {
    this.loop.kick();
  }

  /** Dispatches until no event is due (tests and tooling). */
  async drain(): Promise<void> {
    await this.loop.idle();
    await this.dispatchAll();
    // A pass the wakeup started meanwhile holds the rows this one skipped (SKIP LOCKED): wait for it.
    await this.loop.idle();
  }

  /** Each instance's outbox lives in its database: one pass per instance. */
  private async dispatchAll(): Promise<void> {
    await this.databases.eachInstance(
      async () => {
        while (!this.stopped && (await this.dispatchBatch()) === BATCH);
      },
      (instanceId, error) =>
        this.logger.error(`Outbox dispatch failed on instance ${instanceId}: ${String(error)}`),
    );
  }

  /**
   * Answers how many events were claimed. The batch's consumers run under one savepoint (two round
   * trips for the batch, not two per event); when one fails, the batch is rolled back to it and redone
   * event by event, each under its own savepoint, so only the failing event waits for a retry.
   */
  async dispatchBatch(): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const rows = (await em.query(
        `SELECT id, type, space_id, actor_id, payload, occurred_at, attempts FROM outbox_events
          WHERE published_at IS NULL AND (retry_at IS NULL OR retry_at <= now())
          ORDER BY occurred_at, seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [BATCH],
      )) as EventRow[];
      if (!rows.length) return 0;
      let published: string[];
      await em.query('SAVEPOINT outbox_batch');
      try {
        await this.deliver(rows.map(eventOf), em);
        await em.query('RELEASE SAVEPOINT outbox_batch');
        published = rows.map((row) => row.id);
      } catch {
        await em.query('ROLLBACK TO SAVEPOINT outbox_batch');
        published = await this.deliverOneByOne(rows, em);
      }
      if (published.length) {
        await em.query(
          `UPDATE outbox_events SET published_at = now(), last_error = NULL WHERE id = ANY($1)`,
          [published],
        );
      }
      return rows.length;
    });
  }

  /** Answers the events every consumer handled; records the failure of the others. */
  private async deliverOneByOne(rows: EventRow[], em: EntityManager): Promise<string[]> {
    const published: string[] = [];
    for (const row of rows) {
      await em.query('SAVEPOINT outbox_event');
      try {
        await this.deliver([eventOf(row)], em);
        await em.query('RELEASE SAVEPOINT outbox_event');
        published.push(row.id);
      } catch (error) {
        await em.query('ROLLBACK TO SAVEPOINT outbox_event');
        await this.recordFailure(em, row, error);
      }
    }
    return published;
  }

  private async deliver(events: DispatchedEvent[], em: EntityManager): Promise<void> {
    for (const event of events) {
      for (const subscription of this.subscriptions) {
        if (subscription.matches(event.type)) await subscription.consumer(event as never, em);
      }
    }
    for (const subscription of this.batchSubscriptions) {
      const matching = events.filter((event) => subscription.matches(event.type));
      if (matching.length) await subscription.consumer(matching as never, em);
    }
  }

  private async recordFailure(em: EntityManager, row: EventRow, error: unknown): Promise<void> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
    const attempts = row.attempts + 1;
    const givingUp = attempts >= MAX_ATTEMPTS;
    this.logger.error(
      `Consumer failed on ${row.type} ${row.id} (attempt ${attempts}${givingUp ? ', giving up' : ''}): ${message}`,
    );
    await em.query(
      `UPDATE outbox_events SET attempts = $2, last_error = $3,
              retry_at = now() + make_interval(secs => $4), published_at = CASE WHEN $5 THEN now() END
        WHERE id = $1`,
      [row.id, attempts, message, Math.min(3600, 2 ** attempts), givingUp],
    );
  }
}

function matcherOf(pattern: string, consumer: string): (type: string) => boolean {
  if (pattern === '*') return () => true;
  if (pattern.endsWith('.*')) return (type) => type.startsWith(pattern.slice(0, -1));
  if (isDomainEventType(pattern)) return (type) => type === pattern;
  throw new Error(`Consumer ${consumer} listens to an unknown event type ${pattern}.`);
}

function eventOf(row: EventRow): DispatchedEvent {
  return {
    id: row.id,
    type: row.type as DomainEventType,
    spaceId: row.space_id,
    actorId: row.actor_id,
    data: row.payload as DomainEventMap[DomainEventType],
    occurredAt: row.occurred_at,
  };
}
