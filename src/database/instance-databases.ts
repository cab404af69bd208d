import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { dataSourceOptions } from './data-source-options';
import { DEFAULT_INSTANCE_ID } from './instance-ids';
import { migrateDatabase } from './migrate';

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

  constructor(
    @InjectDataSource() private readonly deployment: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

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

  /** The instances whose pools are open, for work that runs per instance. */
  openInstanceIds(): string[] {
    return [DEFAULT_INSTANCE_ID, ...[...this.pools.keys()]];
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
