import { Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { inClusterWorker } from '../cluster/ipc';
import { Clock } from '../clock/clock.service';
import { ClusterRateLimitStore } from './cluster-rate-limit.store';
import { RateLimitMonitor } from './rate-limit.monitor';
import { MemoryRateLimitStore, RateLimitStore } from './rate-limit.store';

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

async function createStore(config: AppConfig, monitor: RateLimitMonitor): Promise<RateLimitStore> {
  if (!config.redisUrl) return inClusterWorker() ? new ClusterRateLimitStore() : new MemoryRateLimitStore();
  // ioredis is loaded only when REDIS_URL is set (issue 28).
  const { createRedisClient, RedisRateLimitStore } = await import('./redis-rate-limit.store.js');
  const redis = createRedisClient(config.redisUrl);
  redis.on('error', (error: unknown) => monitor.connectionFailed(error));
  return new RedisRateLimitStore(redis, config.redisKeyPrefix);
}

/**
 * The counter store (Redis when REDIS_URL is set; else memory, held by the
 * cluster primary when there are several workers), the clock and the
 * limiter's metrics.
 */
@Module({
  providers: [
    Clock,
    RateLimitMonitor,
    { provide: RATE_LIMIT_STORE, inject: [APP_CONFIG, RateLimitMonitor], useFactory: createStore },
  ],
  exports: [Clock, RateLimitMonitor, RATE_LIMIT_STORE],
})
export class RateLimitStoreModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.store.open();
    if (this.config.redisUrl) new Logger('RateLimit').log('Rate-limit counters are kept in Redis');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
