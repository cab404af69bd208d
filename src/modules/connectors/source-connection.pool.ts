import { createHash } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import type { PostgresTarget } from './connection-string';
import {
  begin,
  resetSession,
  ReadOnlySession,
  sessionOn,
  SessionOptions,
  USER_DB_LIMITS,
  UserDatabase,
  UserDatabaseError,
} from './user-database.client';

/** A pooled connection unused this long is closed. */
export const SOURCE_IDLE_MS = 60_000;
/** A pooled connection is closed once this old (so a login revoked at the source stops working within it). */
export const SOURCE_LIFETIME_MS = 10 * 60_000;

/** The wakeup topic telling every process to close a connector's pool: `connector-pool:<connector id>`. */
export const CONNECTOR_POOL_TOPIC = 'connector-pool';

interface Pooled {
  client: Client;
  openedAt: number;
  idleTimer?: NodeJS.Timeout;
  /** Set when the connection failed: it is closed instead of reused. */
  broken: boolean;
}

interface Waiter {
  resolve: (connection: Pooled) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One connector's connections, for one version of its settings. */
interface ConnectorPool {
  /** Fingerprint of the settings the connections were opened with. */
  settings: string;
  target: PostgresTarget;
  idle: Pooled[];
  /** Connections open or opening, idle ones included. */
  open: number;
  waiters: Waiter[];
  closed: boolean;
}

/**
 * Warm read-only connections to each connector's source database, at most
 * CONNECTOR_POOL_SIZE per connector in this process, so a visual query or a
 * quality check does not pay for a connection (TCP, TLS, authentication)
 * each time. Every use runs in its own READ ONLY transaction with its
 * statement timeout (UserDatabase's `begin`), and the connection is handed
 * back only after `ROLLBACK` and `DISCARD ALL`, so nothing a use left in its
 * session (settings, temporary tables, prepared statements, advisory locks,
 * LISTENs) is there for the next one. A pool belongs to one version of the
 * connector's settings: when they change, the next use opens a new pool and
 * the old one is closed; deleting a connector closes its pool in every
 * process (a `connector-pool:<id>` wakeup).
 */
@Injectable()
export class SourceConnectionPool implements OnModuleInit, OnModuleDestroy {
  private readonly pools = new Map<string, ConnectorPool>();
  private readonly size: number;
  private unsubscribe: (() => void) | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly userDb: UserDatabase,
    private readonly wakeup: Wakeup,
  ) {
    this.size = config.connectorPoolSize;
  }

  onModuleInit(): void {
    this.unsubscribe = this.wakeup.onPrefix(CONNECTOR_POOL_TOPIC, (connectorId) => this.drop(connectorId));
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    await Promise.all([...this.pools.keys()].map((id) => this.drop(id)));
  }

  /** Runs `work` in a read-only transaction on a pooled connection to the connector's source. */
  async withSession<T>(
    connectorId: string,
    target: PostgresTarget,
    work: (session: ReadOnlySession) => Promise<T>,
    options: SessionOptions = {},
  ): Promise<T> {
    const pool = this.poolOf(connectorId, target);
    const connection = await this.acquire(pool);
    try {
      await begin(connection.client, options);
      return await work(sessionOn(connection.client));
    } catch (error) {
      // A failure without a SQLSTATE is the connection's own (dropped, timed out on our side).
      if (!(error instanceof UserDatabaseError) || error.code === null) connection.broken = true;
      throw error;
    } finally {
      // The answer does not wait for the reset: the connection is only lent again once it is done.
      void this.reset(connection).then((clean) => this.release(pool, connection, clean));
    }
  }

  /** Closes the connector's pool (its settings changed or it was deleted). */
  async drop(connectorId: string): Promise<void> {
    const pool = this.pools.get(connectorId);
    if (!pool) return;
    this.pools.delete(connectorId);
    await this.close(pool);
  }

  /** Connections this process holds to the connector's source (open or opening). */
  openConnections(connectorId: string): number {
    return this.pools.get(connectorId)?.open ?? 0;
  }

  private poolOf(connectorId: string, target: PostgresTarget): ConnectorPool {
    const settings = fingerprint(target);
    const current = this.pools.get(connectorId);
    if (current?.settings === settings) return current;
    if (current) void this.close(current);
    const pool: ConnectorPool = { settings, target, idle: [], open: 0, waiters: [], closed: false };
    this.pools.set(connectorId, pool);
    return pool;
  }

  private async acquire(pool: ConnectorPool): Promise<Pooled> {
    for (;;) {
      const idle = pool.idle.pop();
      if (!idle) break;
      clearTimeout(idle.idleTimer);
      if (!idle.broken && Date.now() - idle.openedAt < SOURCE_LIFETIME_MS) return idle;
      void this.destroy(pool, idle);
    }
    if (pool.open < this.size) return this.openFor(pool);
    return new Promise<Pooled>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const at = pool.waiters.indexOf(waiter);
          if (at >= 0) pool.waiters.splice(at, 1);
          reject(
            new UserDatabaseError(
              `All ${this.size} connections to the source are busy; try again in a moment.`,
            ),
          );
        }, USER_DB_LIMITS.connectTimeoutMs),
      };
      pool.waiters.push(waiter);
    });
  }

  private async openFor(pool: ConnectorPool): Promise<Pooled> {
    pool.open++;
    try {
      const client = await this.userDb.connect(pool.target);
      const connection: Pooled = { client, openedAt: Date.now(), broken: false };
      client.on('error', () => {
        connection.broken = true;
      });
      client.on('end', () => {
        connection.broken = true;
      });
      return connection;
    } catch (error) {
      pool.open--;
      throw error;
    }
  }

  /** Ends the use's transaction and wipes the session; false when the connection is not fit to lend again. */
  private async reset(connection: Pooled): Promise<boolean> {
    if (connection.broken) return false;
    return (await resetSession(connection.client)) && !connection.broken;
  }

  private release(pool: ConnectorPool, connection: Pooled, clean: boolean): void {
    if (!clean || pool.closed || Date.now() - connection.openedAt >= SOURCE_LIFETIME_MS) {
      void this.destroy(pool, connection);
      this.serveWaiter(pool);
      return;
    }
    const waiter = pool.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(connection);
      return;
    }
    connection.idleTimer = setTimeout(() => {
      const at = pool.idle.indexOf(connection);
      if (at >= 0) pool.idle.splice(at, 1);
      void this.destroy(pool, connection);
    }, SOURCE_IDLE_MS);
    connection.idleTimer.unref();
    pool.idle.push(connection);
  }

  /** A connection was closed: the first waiter gets a new one. */
  private serveWaiter(pool: ConnectorPool): void {
    const waiter = pool.waiters.shift();
    if (!waiter) return;
    clearTimeout(waiter.timer);
    if (pool.closed) {
      waiter.reject(
        new UserDatabaseError('The connector changed while waiting for a connection; try again.'),
      );
      return;
    }
    this.openFor(pool).then(waiter.resolve, waiter.reject);
  }

  private destroy(pool: ConnectorPool, connection: Pooled): Promise<void> {
    clearTimeout(connection.idleTimer);
    pool.open--;
    return connection.client.end().catch(() => undefined);
  }

  private async close(pool: ConnectorPool): Promise<void> {
    pool.closed = true;
    for (const waiter of pool.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(
        new UserDatabaseError('The connector changed while waiting for a connection; try again.'),
      );
    }
    await Promise.all(pool.idle.splice(0).map((connection) => this.destroy(pool, connection)));
  }
}

/** The settings a connection was opened with, as a digest (the password is not kept in the key). */
function fingerprint(target: PostgresTarget): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        target.host,
        target.port,
        target.database,
        target.user,
        target.password,
        target.sslmode,
      ]),
    )
    .digest('base64url');
}
