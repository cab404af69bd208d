/**
 * Fixed-window accounting, pure and clock-free.
 *
 * Windows are fixed and aligned to the epoch: the minute window is the
 * wall-clock minute, the hour window the wall-clock hour. Every replica
 * computes the same window number and reset time from its clock alone, a
 * window costs one counter (one Redis key with a TTL), and `X-RateLimit-Reset`
 * is an exact timestamp. The price is the usual fixed-window burst: a caller
 * may spend one window's budget at its end and the next one's at its start.
 */

/** One window a request is counted in. */
export interface WindowSpec {
  /** `minute`, `hour`, or `endpoint` for a route's own limit. */
  name: string;
  /** The counter's key without the window number. */
  key: string;
  limit: number;
  windowMs: number;
}

export interface WindowState extends WindowSpec {
  /** Requests counted in the current window. */
  used: number;
  remaining: number;
  /** When the current window ends (epoch ms). */
  resetAtMs: number;
  /** The window had no room for this request. */
  exhausted: boolean;
}

/** A store's answer: whether the request fit every window, and each window's count afterwards. */
export interface ConsumeResult {
  allowed: boolean;
  /** Per window, in the order given: the count including this request when allowed, else the count as it stands. */
  counts: number[];
}

export interface RateLimitDecision {
  allowed: boolean;
  windows: WindowState[];
  /** The window the X-RateLimit-* headers describe. */
  reported: WindowState;
  /** Seconds until every exhausted window has reset; null when allowed. */
  retryAfterSeconds: number | null;
}

export function windowNumber(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs);
}

export function windowEndMs(nowMs: number, windowMs: number): number {
  return (windowNumber(nowMs, windowMs) + 1) * windowMs;
}

/**
 * The all-or-nothing rule both stores implement: a request is counted in
 * every window only if every window has room, so a request refused by one
 * window never uses up another's budget.
 */
export function fitsAll(windows: readonly WindowSpec[], counts: readonly number[]): boolean {
  return windows.every((window, i) => counts[i] < window.limit);
}

/**
 * The window closest to running out: the lowest ratio of remaining to limit.
 * On a tie the earlier one wins, and windows are listed shortest first, so
 * the minute window wins a tie with the hour window (docs/decisions.md#rate-limits).
 */
export function closestToRunningOut<T extends { remaining: number; limit: number }>(
  windows: readonly T[],
): T {
  let best = windows[0];
  for (const window of windows.slice(1)) {
    if (window.remaining / window.limit < best.remaining / best.limit) best = window;
  }
  return best;
}

export function decide(
  windows: readonly WindowSpec[],
  result: ConsumeResult,
  nowMs: number,
): RateLimitDecision {
  if (!windows.length) throw new Error('A rate-limit decision needs at least one window.');
  const states: WindowState[] = windows.map((window, i) => {
    const used = result.counts[i];
    return {
      ...window,
      used,
      remaining: Math.max(0, window.limit - used),
      resetAtMs: windowEndMs(nowMs, window.windowMs),
      exhausted: !result.allowed && used >= window.limit,
    };
  });
  if (result.allowed) {
    return { allowed: true, windows: states, reported: closestToRunningOut(states), retryAfterSeconds: null };
  }
  // Refused: the wait is until the last exhausted window resets, and the headers describe that window.
  const exhausted = states.filter((state) => state.exhausted);
  const blocking = exhausted.reduce((a, b) => (b.resetAtMs > a.resetAtMs ? b : a), exhausted[0] ?? states[0]);
  return {
    allowed: false,
    windows: states,
    reported: blocking,
    retryAfterSeconds: Math.max(1, Math.ceil((blocking.resetAtMs - nowMs) / 1000)),
  };
}

/**
 * The response headers of a decision: `X-RateLimit-*` for the reported
 * window (reset as Unix seconds), and the IETF fields in the form of
 * draft-ietf-httpapi-ratelimit-headers-07: `RateLimit-Policy` lists every
 * window as `<limit>;w=<seconds>`, `RateLimit` gives the reported window's
 * limit, remaining and seconds until reset.
 */
export function rateLimitHeaders(decision: RateLimitDecision, nowMs: number): Record<string, string> {
  const { reported } = decision;
  const secondsLeft = Math.max(0, Math.ceil((reported.resetAtMs - nowMs) / 1000));
  return {
    'X-RateLimit-Limit': String(reported.limit),
    'X-RateLimit-Remaining': String(reported.remaining),
    'X-RateLimit-Reset': String(Math.ceil(reported.resetAtMs / 1000)),
    'RateLimit-Policy': decision.windows.map((w) => `${w.limit};w=${w.windowMs / 1000}`).join(', '),
    RateLimit: `limit=${reported.limit}, remaining=${reported.remaining}, reset=${secondsLeft}`,
  };
}
