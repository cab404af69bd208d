import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { SerialTask, WRITE_FED_GAP_MS } from '../jobs/serial-task';
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
 * with FOR UPDATE SKIP LOCKED (replicas share the work) and marked published
 * in the transaction the consumers then run in (after a failure, a new one
 * with a savepoint per event). So their effects (notifications, webhook
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
    WRITE_FED_GAP_MS,
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
   * with the batch's matching events, in the same transaction; after a
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
   * Answers how many events were claimed. One statement claims the batch and marks it published; the
   * consumers run in the same transaction, whose commit makes their effects and the marks exist
   * together (four round trips for a batch with one consumer statement). When a consumer fails, the
   * whole transaction rolls back and the batch is redone event by event, each under its own savepoint,
   * so only the failing event waits for a retry.
   */
  async dispatchBatch(): Promise<number> {
    let claimed: EventRow[] = [];
    try {
      return await this.dataSource.transaction(async (em) => {
        claimed = await this.claim(em, `ORDER BY occurred_at, seq LIMIT ${BATCH}`, []);
        if (claimed.length) await this.deliver(claimed.map(eventOf), em);
        return claimed.length;
      });
    } catch (error) {
      if (!claimed.length) throw error;
    }
    const ids = claimed.map((row) => row.id);
    await this.dataSource.transaction(async (em) => {
      // Still unpublished and not claimed meanwhile by another dispatcher (which then redoes them itself).
      // A failing event's failure record takes its published mark back.
      await this.deliverOneByOne(await this.claim(em, 'AND id = ANY($1)', [ids]), em);
    });
    return claimed.length;
  }

  /** Claims due events (`filter`: an extra condition, the order and the limit) and marks them published, in order. */
  private async claim(em: EntityManager, filter: string, params: unknown[]): Promise<EventRow[]> {
    return (await em.query(
      `WITH due AS (
         SELECT id FROM outbox_events
          WHERE published_at IS NULL AND (retry_at IS NULL OR retry_at <= now()) ${filter}
          FOR UPDATE SKIP LOCKED
       ), marked AS (
         UPDATE outbox_events e SET published_at = now(), last_error = NULL FROM due WHERE e.id = due.id
         RETURNING e.id, e.type, e.space_id, e.actor_id, e.payload, e.occurred_at, e.attempts, e.seq
       )
       SELECT id, type, space_id, actor_id, payload, occurred_at, attempts FROM marked ORDER BY occurred_at, seq`,
      params,
    )) as EventRow[];
  }

  /** Delivers each event under its own savepoint; records the failure of those a consumer refused. */
  private async deliverOneByOne(rows: EventRow[], em: EntityManager): Promise<void> {
    for (const row of rows) {
      await em.query('SAVEPOINT outbox_event');
      try {
        await this.deliver([eventOf(row)], em);
        await em.query('RELEASE SAVEPOINT outbox_event');
      } catch (error) {
        await em.query('ROLLBACK TO SAVEPOINT outbox_event');
        await this.recordFailure(em, row, error);
      }
    }
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
