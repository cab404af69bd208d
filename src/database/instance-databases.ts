import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { dataSourceOptions } from './data-source-options';
import { DEFAULT_INSTANCE_ID } from './instance-ids';
import { InstanceContext } from './instance-context';
import { migrateDatabase } from './migrate';
import { deploymentDataSource } from './routing-data-source';

/** How long an instance whose database failed answers 503 before the next request tries it again. */
export const INSTANCE_RETRY_SECONDS = 5;

export class InstanceUnavailable extends DomainError {
  constructor(instanceId: string) {
    super(
      503,
      'instance-unavailable',
      'Service Unavailable',
      `The database of instance ${instanceId} is unavailable: try again in ${INSTANCE_RETRY_SECONDS} seconds.`,
      { code: 'instance_database_unavailable', instance_id: instanceId },
      { 'Retry-After': String(INSTANCE_RETRY_SECONDS) },
    );
  }
}

// Refused or lost connections, and PostgreSQL's shutdown and connection-failure classes (57P0x, 08xxx).
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
]);
const CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|not currently accepting connections/i;

/** The error says the database could not be reached (not that a statement was wrong). */
export function isConnectionFailure(error: unknown): boolean {
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return CONNECTION_MESSAGE.test(cause.message);
}

export type InstanceHealth = 'active' | 'unavailable';

/** Answers an instance's database URL (unsealed), or null for an unknown instance. */
export type InstanceLocator = (instanceId: string) => Promise<string | null>;

interface InstancePool {
  url: string;
  dataSource: DataSource | null;
  /** Set while the database is considered down: no connection is tried before this time (ms). */
  retryAt: number;
}

/**
 * One connection pool per instance, created on first use. `default` is the
 * deployment's own DataSource. A pool whose database cannot be reached is
 * marked unavailable for a few seconds, during which its requests answer 503
 * at once instead of each waiting for a connection timeout.
 */
@Injectable()
export class InstanceDatabases implements OnApplicationShutdown {
  private readonly logger = new Logger(InstanceDatabases.name);
  private readonly pools = new Map<string, InstancePool>();
  private readonly opening = new Map<string, Promise<DataSource>>();
  private locator: InstanceLocator | null = null;

  private readonly deployment: DataSource;

  constructor(
    @InjectDataSource() routing: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.deployment = deploymentDataSource(routing);
  }

  /** The instances module tells where each instance's database is (it keeps the sealed URLs). */
  setLocator(locator: InstanceLocator): void {
    this.locator = locator;
  }

  get deploymentDataSource(): DataSource {
    return this.deployment;
  }

  health(instanceId: string): InstanceHealth {
    const pool = this.pools.get(instanceId);
    return pool && pool.retryAt > Date.now() ? 'unavailable' : 'active';
  }

  /** The instance's DataSource, opened on first use; 503 while its database is down. */
  async dataSource(instanceId: string): Promise<DataSource> {
    if (instanceId === DEFAULT_INSTANCE_ID) return this.deployment;
    const pool = this.pools.get(instanceId);
    if (pool?.dataSource?.isInitialized && pool.retryAt === 0) return pool.dataSource;
    if (pool && pool.retryAt > Date.now()) throw new InstanceUnavailable(instanceId);
    let opening = this.opening.get(instanceId);
    if (!opening) {
      opening = this.open(instanceId).finally(() => this.opening.delete(instanceId));
      this.opening.set(instanceId, opening);
    }
    return opening;
  }

  /** A query on the instance failed for want of its database: refuse its work for a while. */
  markUnavailable(instanceId: string, cause: unknown): void {
    if (instanceId === DEFAULT_INSTANCE_ID) return;
    const pool = this.pools.get(instanceId);
    if (!pool) return;
    if (pool.retryAt === 0) {
      this.logger.warn(`Instance ${instanceId}: database unavailable (${(cause as Error).message})`);
    }
    pool.retryAt = Date.now() + INSTANCE_RETRY_SECONDS * 1000;
  }

  /** Brings a database to the current schema (a new instance's, or each one at start). */
  async migrate(url: string): Promise<number> {
    return migrateDatabase(url, { embedded: false });
  }

  /** Closes an instance's pool (its URL changed, or it was deleted); the next use opens a new one. */
  async forget(instanceId: string): Promise<void> {
    const pool = this.pools.get(instanceId);
    this.pools.delete(instanceId);
    if (pool?.dataSource?.isInitialized) await pool.dataSource.destroy();
  }

  /**
   * Runs background work (outbox, jobs, mail) once per instance, each run in
   * that instance's scope: `default`, then every instance whose pool is open
   * and available (all of them once migrated at start). One instance's
   * failure is logged and does not stop the others.
   */
  async eachInstance(
    work: () => Promise<unknown>,
    onError: (instanceId: string, error: unknown) => void,
  ): Promise<void> {
    await InstanceContext.run({ instanceId: DEFAULT_INSTANCE_ID, dataSource: null }, work);
    for (const [instanceId, pool] of [...this.pools]) {
      if (!pool.dataSource?.isInitialized || pool.retryAt > Date.now()) continue;
      const dataSource = pool.dataSource;
      try {
        await InstanceContext.run({ instanceId, dataSource }, work);
      } catch (error) {
        if (isConnectionFailure(error)) this.markUnavailable(instanceId, error);
        onError(instanceId, error);
      }
    }
  }

  /** Opens the instance's pool now, without failing: at start, and for background work. */
  async warm(instanceId: string): Promise<void> {
    try {
      await this.dataSource(instanceId);
    } catch {
      // Logged and marked unavailable by open(); its requests answer 503 until it is back.
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const id of [...this.pools.keys()]) await this.forget(id);
  }

  private async open(instanceId: string): Promise<DataSource> {
    const existing = this.pools.get(instanceId);
    const url = existing?.url ?? (await this.locate(instanceId));
    const pool: InstancePool = existing ?? { url, dataSource: null, retryAt: 0 };
    this.pools.set(instanceId, pool);
    try {
      if (!pool.dataSource?.isInitialized) {
        pool.dataSource = new DataSource(
          dataSourceOptions({ url, poolSize: this.config.instanceDatabasePoolSize }),
        );
        await pool.dataSource.initialize();
        // Entity subscribers registered at start (wakeups after commit) apply to every instance.
        pool.dataSource.subscribers.push(...this.deployment.subscribers);
      } else {
        // It was marked down: one round trip tells whether it is back.
        await pool.dataSource.query('SELECT 1');
      }
      if (pool.retryAt !== 0) this.logger.log(`Instance ${instanceId}: database available again`);
      pool.retryAt = 0;
      return pool.dataSource;
    } catch (error) {
      this.markUnavailable(instanceId, error);
      pool.retryAt = Date.now() + INSTANCE_RETRY_SECONDS * 1000;
      throw new InstanceUnavailable(instanceId);
    }
  }

  private async locate(instanceId: string): Promise<string> {
    const url = this.locator ? await this.locator(instanceId) : null;
    if (!url) throw new InstanceUnavailable(instanceId);
    return url;
  }
}
