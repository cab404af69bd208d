import { Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';
import { Clock } from '../clock/clock.service';
import { BUCKET_KINDS, BucketKind } from './rate-limit-tiers';

export const STORE_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Metrics and logs of the rate limiter. A dead counter store fails every
 * request, so its log is throttled: the first failure is logged at once,
 * later ones at most once per interval with how many were not logged.
 */
@Injectable()
export class RateLimitMonitor {
  private readonly logger = new Logger('RateLimit');
  private readonly storeErrors: Counter<string>;
  private readonly rejections: Counter<'bucket'>;
  private lastLogMs = Number.NEGATIVE_INFINITY;
  private unlogged = 0;

  constructor(
    metrics: MetricsService,
    private readonly clock: Clock,
  ) {
    this.storeErrors = new Counter({
      name: 'rate_limit_store_errors_total',
      help: 'Requests served without rate limiting because the counter store failed (fail open).',
      registers: [metrics.registry],
    });
    this.rejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429 by the general or endpoint rate limits, by bucket kind.',
      labelNames: ['bucket'] as const,
      registers: [metrics.registry],
    });
    for (const bucket of BUCKET_KINDS) this.rejections.inc({ bucket }, 0);
  }

  /** A request was served unlimited because the store failed. */
  storeFailed(error: unknown): void {
    this.storeErrors.inc();
    this.log('Rate-limit counters are unreachable; requests are served without limits (fail open)', error);
  }

  /** The connection to the store broke (it reconnects by itself). */
  connectionFailed(error: unknown): void {
    this.log('Rate-limit counter store connection failed; retrying', error);
  }

  rejected(bucket: BucketKind): void {
    this.rejections.inc({ bucket });
  }

  private log(message: string, error: unknown): void {
    const now = this.clock.now();
    if (now - this.lastLogMs < STORE_FAILURE_LOG_INTERVAL_MS) {
      this.unlogged++;
      return;
    }
    const cause = error instanceof Error ? error.message : String(error);
    const more = this.unlogged ? ` (${this.unlogged} more failures since the last report)` : '';
    this.logger.warn(`${message}: ${cause}${more}`);
    this.lastLogMs = now;
    this.unlogged = 0;
  }
}
