import { normalizeIp } from '@nestjs/throttler';
import type { Request } from 'express';
import type { Actor } from '../../common/auth/actor';
import type { GeneralWindow } from '../../common/http/rate-limit.decorators';
import type { AppConfig, RateLimitTier } from '../../config/app.config';

/** The specification's API-key tier table, the source of truth for every caller (docs/decisions.md#rate-limits). */
export const TIER_LIMITS: Record<RateLimitTier, Record<GeneralWindow, number>> = {
  standard: { minute: 60, hour: 1_000 },
  premium: { minute: 300, hour: 10_000 },
  internal: { minute: 1_000, hour: 50_000 },
};

export const WINDOW_MS: Record<GeneralWindow, number> = { minute: 60_000, hour: 3_600_000 };

/** Whose budget a request uses. */
export type BucketKind = 'api_key' | 'user' | 'ip';
export const BUCKET_KINDS: readonly BucketKind[] = ['api_key', 'user', 'ip'];

export interface RateLimitSubject {
  kind: BucketKind;
  /** Names the bucket in counter keys: `api-key:<id>`, `user:<id>` or `ip:<address>`. */
  tracker: string;
  tier: RateLimitTier;
}

// IPv6 clients are counted per /64, as the throttler does: one host usually holds the whole prefix.
const IPV6_SUBNET_PREFIX = 64;

/**
 * Per key (by the key's tier), else per user (RATE_LIMIT_USER_TIER), else
 * per client address (RATE_LIMIT_ANON_TIER). An impersonation token counts
 * against the impersonated user, whose session it is.
 */
export function subjectOf(
  actor: Actor | undefined,
  ip: string | undefined,
  config: Pick<AppConfig, 'rateLimitUserTier' | 'rateLimitAnonTier'>,
): RateLimitSubject {
  if (actor?.apiKeyId) {
    return { kind: 'api_key', tracker: `api-key:${actor.apiKeyId}`, tier: actor.apiKeyTier ?? 'standard' };
  }
  if (actor) return { kind: 'user', tracker: `user:${actor.userId}`, tier: config.rateLimitUserTier };
  return {
    kind: 'ip',
    tracker: `ip:${normalizeIp(ip ?? 'unknown', IPV6_SUBNET_PREFIX)}`,
    tier: config.rateLimitAnonTier,
  };
}

const subjects = new WeakMap<Request, RateLimitSubject>();

/** The caller's bucket, worked out once per request (the throttlers' limit functions ask too). */
export function subjectOfRequest(
  request: Request,
  config: Pick<AppConfig, 'rateLimitUserTier' | 'rateLimitAnonTier'>,
): RateLimitSubject {
  let subject = subjects.get(request);
  if (!subject) {
    subject = subjectOf(request.actor, request.ip, config);
    subjects.set(request, subject);
  }
  return subject;
}
