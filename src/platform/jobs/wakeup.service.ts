import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, EntityManager, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';

const CHANNEL = 'verity_wakeup';
const PENDING = Symbol('pending wakeups');

type Pending = { [PENDING]?: string[] };

/**
 * Tells workers and live streams that something was committed, so they need
 * not wait for their next poll. Signals raised inside a transaction go out
 * only after it commits. On PostgreSQL they travel by NOTIFY to every
 * replica; on the embedded database (one process) they stay in-process.
 * A lost signal only costs latency: every consumer also polls.
 */
@Injectable()
export class Wakeup implements OnModuleInit, OnApplicationShutdown, EntitySubscriberInterface {
  private readonly logger = new Logger(Wakeup.name);
  private readonly local = new EventEmitter().setMaxListeners(0);
  private listener: Client | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    this.dataSource.subscribers.push(this);
    if (!this.config.databaseUrl) return;
    const options = this.dataSource.options as { url?: string };
    this.listener = new Client({ connectionString: options.url });
    this.listener.on('notification', (message) => {
      if (message.payload) this.emitLocal(message.payload);
    });
    this.listener.on('error', (error) => this.logger.warn(`Wakeup listener failed: ${error.message}`));
    try {
      await this.listener.connect();
      await this.listener.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.logger.warn(`Wakeup listener unavailable, relying on polling: ${String(error)}`);
      this.listener = null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
  }

  /** Signals `topic` (e.g. `outbox`, `jobs`, `notifications:<userId>`) once `em`'s transaction commits. */
  signal(em: EntityManager | null, topic: string): void {
    const runner = em?.queryRunner as (Pending & { isTransactionActive?: boolean }) | undefined;
    if (runner?.isTransactionActive) {
      (runner[PENDING] ??= []).push(topic);
      return;
    }
    this.send(topic);
  }

  on(topic: string, listener: () => void): () => void {
    this.local.on(topic, listener);
    return () => this.local.off(topic, listener);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const runner = event.queryRunner as Pending;
    const topics = runner[PENDING];
    if (!topics) return;
    delete runner[PENDING];
    for (const topic of new Set(topics)) this.send(topic);
  }

  afterTransactionRollback(event: TransactionCommitEvent): void {
    delete (event.queryRunner as Pending)[PENDING];
  }

  private send(topic: string): void {
    if (!this.listener) {
      setImmediate(() => this.emitLocal(topic));
      return;
    }
    this.listener.query('SELECT pg_notify($1, $2)', [CHANNEL, topic]).catch((error: unknown) => {
      this.logger.warn(`NOTIFY failed, relying on polling: ${String(error)}`);
      this.emitLocal(topic);
    });
  }

  private emitLocal(topic: string): void {
    this.local.emit(topic);
  }
}
