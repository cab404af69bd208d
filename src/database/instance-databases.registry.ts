import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { isConnectionFailure } from '../common/errors/postgres-error.mapper';
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

export type InstanceHealth = 'active' | 'unavailable';

/** What the database layer asks the instance registry (the instances module keeps it, and the sealed URLs). */
export interface InstanceRegistry {
  /** The instance's database URL (unsealed), or null when it has none that can be used. */
  databaseUrl(instanceId: string): Promise<string | null>;
}

// Background passes open at most this many known-but-closed pools at a time, each in the background.
const MAX_BACKGROUND_OPENS = 2;

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
  // Databases brought to the current schema by this process: a pool's first open migrates the others.
  private readonly migrated = new Set<string>();
  private registry: InstanceRegistry | null = null;

  private readonly deployment: DataSource;

  constructor(
    @InjectDataSource() routing: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.deployment = deploymentDataSource(routing);
  }

  setRegistry(registry: InstanceRegistry): void {
    this.registry = registry;
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

  /**
   * The 503 to answer when `error` says the instance's database cannot be
   * reached, which also makes the instance refuse work for a while; null for
   * any other error, and on `default` (the deployment's own database).
   */
  unavailable(instanceId: string, error: unknown): InstanceUnavailable | null {
    if (instanceId === DEFAULT_INSTANCE_ID || !isConnectionFailure(error)) return null;
    this.markUnavailable(instanceId, error);
    return new InstanceUnavailable(instanceId);
  }

  /** Brings a database to the current schema (a new instance's, or an instance's on its pool's first open). */
  async migrate(url: string): Promise<number> {
    const applied = await migrateDatabase(url, { embedded: false });
    this.migrated.add(url);
    return applied;
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
   * and available. A known pool that is not open (its database was down at
   * start) is opened in the background once its back-off is over, and joins
   * the next pass. One instance's failure is logged and does not stop the
   * others.
   */
  async eachInstance(
    work: () => Promise<unknown>,
    onError: (instanceId: string, error: unknown) => void,
  ): Promise<void> {
    await InstanceContext.run({ instanceId: DEFAULT_INSTANCE_ID, dataSource: null }, work);
    for (const [instanceId, pool] of [...this.pools]) {
      if (pool.retryAt > Date.now()) continue;
      if (!pool.dataSource?.isInitialized) {
        // Not awaited: a database that does not answer must not hold up the others' work.
        if (!this.opening.has(instanceId) && this.opening.size < MAX_BACKGROUND_OPENS) {
          void this.warm(instanceId);
        }
        continue;
      }
      const dataSource = pool.dataSource;
      try {
        await InstanceContext.run({ instanceId, dataSource }, work);
      } catch (error) {
        if (isConnectionFailure(error)) this.markUnavailable(instanceId, error);
        onError(instanceId, error);
      }
    }
  }

  /** Opens the instance's pool now, without failing: at start, on creation, and for background work. */
  async warm(instanceId: string): Promise<void> {
    try {
      await this.dataSource(instanceId);
    } catch {
      // Logged and marked unavailable by open(); its requests answer 503 until it is back.
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // A background open still in flight would leave its pool behind.
    await Promise.allSettled([...this.opening.values()]);
    for (const id of [...this.pools.keys()]) await this.forget(id);
  }

  private async open(instanceId: string): Promise<DataSource> {
    const existing = this.pools.get(instanceId);
    const url = existing?.url ?? (await this.locate(instanceId));
    const pool: InstancePool = existing ?? { url, dataSource: null, retryAt: 0 };
    this.pools.set(instanceId, pool);
    try {
      if (!pool.dataSource?.isInitialized) {
        // The first open in this process brings the database to the current schema (it may have been down at start).
        if (!this.migrated.has(url)) {
          const applied = await this.migrate(url);
          if (applied) this.logger.log(`Instance ${instanceId}: applied ${applied} migrations`);
        }
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
    const url = this.registry ? await this.registry.databaseUrl(instanceId) : null;
    if (!url) throw new InstanceUnavailable(instanceId);
    return url;
  }
}
