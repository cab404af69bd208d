import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';

/** The general windows every caller's requests count against (docs/decisions.md#rate-limits). */
export const GENERAL_WINDOWS = ['minute', 'hour'] as const;
export type GeneralWindow = (typeof GENERAL_WINDOWS)[number];

/** Metadata of @EndpointRateLimit: a stricter per-route limit on top of the general ones. */
export const ENDPOINT_RATE_LIMIT = 'verity:endpoint-rate-limit';
export interface EndpointRateLimitOptions {
  limit: number;
  windowSeconds: number;
}

/** Metadata of @RateLimitNotCounted: the route reports the caller's budget without using it. */
export const RATE_LIMIT_NOT_COUNTED = 'verity:rate-limit-not-counted';

/**
 * Exempts a route from rate limiting: it is never limited, never counted,
 * and carries no rate-limit headers (the specification's exempt endpoints).
 * @SkipThrottle() alone would only skip the throttler named `default`.
 */
export function NoRateLimit() {
  return applyDecorators(
    SkipThrottle(Object.fromEntries(GENERAL_WINDOWS.map((name) => [name, true]))),
    ApiExtension('x-rate-limit', { exempt: true }),
  );
}

/**
 * A stricter limit for one route, counted per caller (key, user or IP) in
 * its own fixed window, on top of the caller's general minute and hour
 * windows: a request must fit all of them. For the specification's
 * `POST /search` (30), `POST /quality/checks/{id}/run` (10) and
 * `POST /connectors/spaces/{slug}/{connector_id}/sync` (5) per minute.
 */
export function EndpointRateLimit(limit: number, windowSeconds = 60) {
  if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new Error('EndpointRateLimit needs a positive whole limit and window.');
  }
  return applyDecorators(
    SetMetadata(ENDPOINT_RATE_LIMIT, { limit, windowSeconds } satisfies EndpointRateLimitOptions),
    ApiExtension('x-rate-limit', { endpoint_limit: limit, window_seconds: windowSeconds }),
  );
}

/** The route shows the caller's budget: it carries the headers but uses none of it and is never refused. */
export function RateLimitNotCounted() {
  return applyDecorators(
    SetMetadata(RATE_LIMIT_NOT_COUNTED, true),
    ApiExtension('x-rate-limit', { counted: false }),
  );
}
