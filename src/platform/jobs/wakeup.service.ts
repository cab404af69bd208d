import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, EntityManager, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';

const CHANNEL = 'verity_wakeup';
/** Waits between attempts to listen again after the listening connection was lost: doubling, capped. */
const RELISTEN_FIRST_MS = 500;
const RELISTEN_MAX_MS = 30_000;
/** Local event of `onRelisten`; no topic is named like it. */
const RELISTENED = '\u0000relistened';
const PENDING = Symbol('pending wakeups');
const PENDING_HERE = Symbol('pending wakeups of this process');
/** Local event name of the listeners of a topic prefix (onPrefix); no topic starts with it. */
const PREFIXED = '\u0000prefix:';

type Pending = { [PENDING]?: string[]; [PENDING_HERE]?: string[] };

/**
 * Tells workers and live streams that something was committed, so they need
 * not wait for their next poll. Signals raised inside a transaction go out
 * only after it commits. On PostgreSQL they travel by NOTIFY to every
 * replica; on the embedded database (one process) they stay in-process,
 * as work-queue signals (`signalHere`) always do.
 * A lost signal only costs latency: every consumer also polls. A lost
 * listening connection is opened again, with growing waits; signals sent
 * meanwhile may have been missed, which `onRelisten` tells.
 */
@Injectable()
export class Wakeup implements OnModuleInit, OnApplicationShutdown, EntitySubscriberInterface {
  private readonly logger = new Logger(Wakeup.name);
  private readonly local = new EventEmitter().setMaxListeners(0);
  private listener: Client | null = null;
  /** Topics waiting for the listening connection, which runs one statement at a time. */
  private readonly outgoing = new Set<string>();
  private flushing = false;
  /** False while the listening connection is down: signals from other processes may then be missed. */
  private heard = true;
  private relistenTimer: NodeJS.Timeout | null = null;
  private relistenWaitMs = RELISTEN_FIRST_MS;
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    this.dataSource.subscribers.push(this);
    if (!this.config.databaseUrl) return;
    if (!(await this.listen())) this.logger.warn('Wakeup listener unavailable, relying on polling meanwhile');
  }

  /** Opens the listening connection; answers whether it listens. */
  private async listen(): Promise<boolean> {
    const options = this.dataSource.options as { url?: string };
    const listener = new Client({ connectionString: options.url });
    let lost = false;
    const onLost = (reason: string) => {
      if (lost) return;
      lost = true;
      this.heard = false;
      if (this.listener === listener) this.listener = null;
      if (this.stopping) return;
      this.logger.warn(`Wakeup listener lost (${reason}), relying on polling until it listens again`);
      this.scheduleRelisten();
    };
    listener.on('notification', (message) => {
      if (message.payload) this.emitLocal(message.payload);
    });
    listener.on('error', (error) => onLost(error.message));
    listener.on('end', () => onLost('connection ended'));
    try {
      await listener.connect();
      await listener.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.heard = false;
      lost = true;
      await listener.end().catch(() => undefined);
      if (!this.stopping) this.scheduleRelisten();
      this.logger.debug(`Wakeup listener could not listen: ${String(error)}`);
      return false;
    }
    if (this.stopping) {
      await listener.end().catch(() => undefined);
      return false;
    }
    // Only now: signals raised before go out in-process, never concurrently with LISTEN.
    this.listener = listener;
    this.heard = true;
    this.relistenWaitMs = RELISTEN_FIRST_MS;
    return true;
  }

  private scheduleRelisten(): void {
    if (this.relistenTimer) return;
    const wait = this.relistenWaitMs;
    this.relistenWaitMs = Math.min(wait * 2, RELISTEN_MAX_MS);
    this.relistenTimer = setTimeout(() => {
      this.relistenTimer = null;
      void this.listen().then((listening) => {
        if (!listening) return;
        this.logger.log('Wakeup listener listens again');
        // Whatever was signalled while it was down was not heard: those who keep state catch up now.
        this.local.emit(RELISTENED);
      });
    }, wait);
    this.relistenTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  /** Signals `topic` (e.g. `notifications:<userId>`, a cache's version) to every process once `em`'s transaction commits. */
  signal(em: EntityManager | null, topic: string): void {
    if (!this.deferred(em, PENDING, topic)) this.send(topic);
  }

  /**
   * Signals a work queue's `topic` (`outbox`, `jobs`, `mail`) to this process alone once `em`'s
   * transaction commits. Every process runs every queue's worker, so the writer's own worker takes
   * the work: no NOTIFY statement, and no other worker woken only to find the rows claimed (under
   * write load that was four statements per write). Work this process leaves, or a process that
   * dies leaves, is found by the other workers' polls.
   */
  signalHere(em: EntityManager | null, topic: string): void {
    if (!this.deferred(em, PENDING_HERE, topic)) this.emitSoon(topic);
  }

  /** Keeps `topic` on `em`'s open transaction (under `list`) until it commits; false outside a transaction. */
  private deferred(
    em: EntityManager | null,
    list: typeof PENDING | typeof PENDING_HERE,
    topic: string,
  ): boolean {
    const runner = em?.queryRunner as (Pending & { isTransactionActive?: boolean }) | undefined;
    if (!runner?.isTransactionActive) return false;
    (runner[list] ??= []).push(topic);
    return true;
  }

  on(topic: string, listener: () => void): () => void {
    this.local.on(topic, listener);
    return () => this.local.off(topic, listener);
  }

  /**
   * Listens to every topic `<prefix>:<rest>`, called with `<rest>` (a topic
   * carrying a value, such as a version: `ai-config:<instance>:<version>`).
   */
  onPrefix(prefix: string, listener: (rest: string) => void): () => void {
    const event = `${PREFIXED}${prefix}`;
    this.local.on(event, listener);
    return () => this.local.off(event, listener);
  }

  /**
   * Calls `listener` each time the listening connection listens again after
   * being lost: signals sent meanwhile were missed, so state kept from
   * signals (caches) must be read afresh.
   */
  onRelisten(listener: () => void): () => void {
    this.local.on(RELISTENED, listener);
    return () => this.local.off(RELISTENED, listener);
  }

  /**
   * Whether every signal committed by any process reaches this one: always
   * on the embedded database (one process), on PostgreSQL while the
   * listening connection is up. A cache that relies on signals to stay
   * current checks the database itself when this is false.
   */
  hearsEverySignal(): boolean {
    return !this.config.databaseUrl || (this.listener !== null && this.heard);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const runner = event.queryRunner as Pending;
    const topics = runner[PENDING];
    const here = runner[PENDING_HERE];
    delete runner[PENDING];
    delete runner[PENDING_HERE];
    if (topics) for (const topic of new Set(topics)) this.send(topic);
    if (here) for (const topic of new Set(here)) this.emitSoon(topic);
  }

  afterTransactionRollback(event: TransactionCommitEvent): void {
    delete (event.queryRunner as Pending)[PENDING];
    delete (event.queryRunner as Pending)[PENDING_HERE];
  }

  private send(topic: string): void {
    if (!this.listener) {
      this.emitSoon(topic);
      return;
    }
    this.outgoing.add(topic);
    if (!this.flushing) void this.flush();
  }

  /**
   * One NOTIFY statement at a time on the listening connection (a pg client
   * must not run two queries at once); topics signalled meanwhile collapse
   * into the next statement.
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.outgoing.size && this.listener) {
        const topics = [...this.outgoing];
        this.outgoing.clear();
        try {
          await this.listener.query('SELECT pg_notify($1, topic) FROM unnest($2::text[]) AS topic', [
            CHANNEL,
            topics,
          ]);
        } catch (error) {
          this.logger.warn(`NOTIFY failed, relying on polling: ${String(error)}`);
          for (const topic of topics) this.emitLocal(topic);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Emits in-process after the current callbacks, as a NOTIFY would arrive: never inside the signaller's own call. */
  private emitSoon(topic: string): void {
    setImmediate(() => this.emitLocal(topic));
  }

  private emitLocal(topic: string): void {
    this.local.emit(topic);
    const colon = topic.indexOf(':');
    if (colon > 0) this.local.emit(`${PREFIXED}${topic.slice(0, colon)}`, topic.slice(colon + 1));
  }
}
