import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerOptions,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { TooManyRequests } from '../../common/errors/domain-error';
import {
  ENDPOINT_RATE_LIMIT,
  EndpointRateLimitOptions,
  RATE_LIMIT_NOT_COUNTED,
} from '../../common/http/rate-limit.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { Clock } from '../clock/clock.service';
import { keepSnapshot } from './rate-limit-snapshot';
import { RateLimitMonitor } from './rate-limit.monitor';
import type { RateLimitStore } from './rate-limit.store';
import { RateLimitSubject, subjectOfRequest } from './rate-limit-tiers';
import { ConsumeResult, decide, RateLimitDecision, rateLimitHeaders, WindowSpec } from './rate-limit-windows';

// @nestjs/throttler's metadata key of @SkipThrottle({ <name>: true }).
const THROTTLER_SKIP = 'THROTTLER:SKIP';
const ENDPOINT_WINDOW = 'endpoint';

/**
 * The second global guard, after AuthenticationGuard (so the caller and its
 * tier are known) and before RequireAuthGuard (so a 401 is counted and
 * carries the headers too).
 *
 * It replaces the throttler's per-throttler loop: the named throttlers
 * (`minute`, `hour`) and a route's @EndpointRateLimit are checked together
 * and counted together in one atomic store call, so a request refused by one
 * window uses none of another's budget. Keys are per caller, not per route,
 * so every route draws on one budget (the throttler's default key is per
 * route).
 *
 * Headers are written here, not by an interceptor: interceptors run after
 * the guards and never see a 401 or 429 thrown by one. Written before the
 * handler runs, they stay on whatever the request ends in (2xx, or any
 * problem the filter writes). Exempt routes (@NoRateLimit) get none.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly store: RateLimitStore,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly monitor: RateLimitMonitor,
  ) {
    super(options, store, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    // Only GET /rate-limit is not counted; it reports the snapshot left here, even with the limiter off.
    const reporting = this.reflector.getAllAndOverride<boolean>(RATE_LIMIT_NOT_COUNTED, targets) === true;
    if (!this.config.rateLimitEnabled && !reporting) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const subject = subjectOfRequest(request, this.config);
    const windows = await this.windowsOf(context, subject);
    if (!windows.length) return true;
    const report = (decision: RateLimitDecision | null) => {
      if (reporting) keepSnapshot(request, { subject, windows, decision });
    };
    if (!this.config.rateLimitEnabled) {
      report(null);
      return true;
    }

    const now = this.clock.now();
    let result: ConsumeResult;
    try {
      result = reporting
        ? { allowed: true, counts: await this.store.peek(windows, now) }
        : await this.store.consume(windows, now);
    } catch (error) {
      // Fail open: serve the request uncounted, with no headers (there are no counts to report).
      this.monitor.storeFailed(error);
      report(null);
      return true;
    }
    const decision = decide(windows, result, now);
    report(decision);
    const response = context.switchToHttp().getResponse<Response>();
    for (const [name, value] of Object.entries(rateLimitHeaders(decision, now))) {
      response.setHeader(name, value);
    }
    if (!decision.allowed) {
      this.monitor.rejected(subject.kind);
      throw new TooManyRequests(decision.retryAfterSeconds ?? 1);
    }
    return true;
  }

  /** The general windows the route does not skip, and its own limit if it has one; shortest first. */
  private async windowsOf(context: ExecutionContext, subject: RateLimitSubject): Promise<WindowSpec[]> {
    const targets = [context.getHandler(), context.getClass()];
    const bucket = `{${subject.tracker}}`;
    const windows: WindowSpec[] = [];
    for (const throttler of this.throttlers) {
      if (this.reflector.getAllAndOverride<boolean>(THROTTLER_SKIP + throttler.name, targets)) continue;
      windows.push({
        name: throttler.name ?? 'default',
        key: `${bucket}:${throttler.name}`,
        limit: await resolve(throttler.limit, context),
        windowMs: await resolve(throttler.ttl, context),
      });
    }
    const endpoint = this.reflector.getAllAndOverride<EndpointRateLimitOptions | undefined>(
      ENDPOINT_RATE_LIMIT,
      targets,
    );
    if (endpoint && windows.length) {
      windows.push({
        name: ENDPOINT_WINDOW,
        key: `${bucket}:${ENDPOINT_WINDOW}:${context.getClass().name}.${context.getHandler().name}`,
        limit: endpoint.limit,
        windowMs: endpoint.windowSeconds * 1000,
      });
    }
    // Stable: of two windows of one length, the general one comes first.
    return windows.sort((a, b) => a.windowMs - b.windowMs);
  }
}

async function resolve(value: ThrottlerOptions['limit'], context: ExecutionContext): Promise<number> {
  return typeof value === 'function' ? value(context) : value;
}
