import { Module } from '@nestjs/common';
import { ThrottlerModule, ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { GENERAL_WINDOWS } from '../../common/http/rate-limit.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { RateLimitController } from './rate-limit.controller';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store';
import { RATE_LIMIT_STORE, RateLimitStoreModule } from '../../platform/rate-limit/rate-limit-store.module';
import { subjectOfRequest, TIER_LIMITS, WINDOW_MS } from '../../platform/rate-limit/rate-limit-tiers';

/** The throttlers: a minute and an hour window whose limits follow the caller's tier. */
function throttlerOptions(config: AppConfig, store: RateLimitStore): ThrottlerModuleOptions {
  return {
    storage: store,
    setHeaders: false,
    throttlers: GENERAL_WINDOWS.map((name) => ({
      name,
      ttl: WINDOW_MS[name],
      limit: (context) =>
        TIER_LIMITS[subjectOfRequest(context.switchToHttp().getRequest<Request>(), config).tier][name],
    })),
  };
}

/**
 * Rate limiting. RateLimitGuard itself (platform/rate-limit) is registered
 * globally by request-pipeline.ts, between authentication and the
 * authentication requirement; this module gives it the throttler
 * configuration, the store, the clock and metrics, and serves GET /rate-limit.
 */
@Module({
  imports: [
    RateLimitStoreModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [APP_CONFIG, RATE_LIMIT_STORE],
      useFactory: throttlerOptions,
    }),
  ],
  controllers: [RateLimitController],
  exports: [RateLimitStoreModule],
})
export class RateLimitsModule {}
