import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { RateLimitSubject } from './rate-limit-tiers';
import type { RateLimitDecision, WindowSpec } from './rate-limit-windows';

/** What the guard worked out for one request, for GET /rate-limit to show. */
export interface RateLimitSnapshot {
  subject: RateLimitSubject;
  windows: readonly WindowSpec[];
  /** Null when nothing could be counted: the limiter is off, or its store failed (fail open). */
  decision: RateLimitDecision | null;
}

// Kept beside the request rather than on it, so the Express Request type stays the platform's.
const snapshots = new WeakMap<Request, RateLimitSnapshot>();

export function keepSnapshot(request: Request, snapshot: RateLimitSnapshot): void {
  snapshots.set(request, snapshot);
}

/** The rate-limit snapshot the guard left for this request. */
export const CurrentRateLimit = createParamDecorator(
  (_data: unknown, context: ExecutionContext): RateLimitSnapshot | undefined =>
    snapshots.get(context.switchToHttp().getRequest<Request>()),
);
