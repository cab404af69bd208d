import type { ThrottlerStorage } from '@nestjs/throttler';
import { ConsumeResult, fitsAll, windowEndMs, windowNumber, WindowSpec } from './rate-limit-windows';

/**
 * Where the counters live: in this process, or in Redis so that replicas
 * share one budget. It is the throttler's storage too (`increment` keeps
 * that contract), but the guard uses `consume`, which counts a request in
 * all its windows at once or in none.
 */
export interface RateLimitStore extends ThrottlerStorage {
  /** Connects, at boot; a store that cannot connect yet still answers (by failing, so requests fail open). */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Counts the request in every window if each has room; atomically. */
  consume(windows: readonly WindowSpec[], nowMs: number): Promise<ConsumeResult>;
  /** The current counts, without counting anything. */
  peek(windows: readonly WindowSpec[], nowMs: number): Promise<number[]>;
}

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** The throttler's single-window contract on top of `consume`. */
export async function incrementAsThrottler(
  store: RateLimitStore,
  key: string,
  ttl: number,
  limit: number,
  throttlerName: string,
): Promise<ThrottlerStorageRecord> {
  const now = Date.now();
  const { allowed, counts } = await store.consume([{ name: throttlerName, key, limit, windowMs: ttl }], now);
  const secondsLeft = Math.ceil((windowEndMs(now, ttl) - now) / 1000);
  return {
    totalHits: allowed ? counts[0] : counts[0] + 1,
    timeToExpire: secondsLeft,
    isBlocked: !allowed,
    timeToBlockExpire: allowed ? 0 : secondsLeft,
  };
}

interface Counter {
  window: number;
  count: number;
  expiresAtMs: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters of this process. Each key holds its current window only; a
 * counter from a past window reads as zero and is swept once a minute.
 * Node runs the check-then-count without interleaving, so it is atomic.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, Counter>();
  private lastSweepMs = 0;

  async open(): Promise<void> {}

  async close(): Promise<void> {
    this.counters.clear();
  }

  async consume(windows: readonly WindowSpec[], nowMs: number): Promise<ConsumeResult> {
    this.sweep(nowMs);
    const counters = windows.map((window) => this.counterOf(window, nowMs));
    const allowed = fitsAll(
      windows,
      counters.map((c) => c.count),
    );
    if (allowed) for (const counter of counters) counter.count++;
    return { allowed, counts: counters.map((c) => c.count) };
  }

  async peek(windows: readonly WindowSpec[], nowMs: number): Promise<number[]> {
    return windows.map((window) => {
      const counter = this.counters.get(window.key);
      return counter && counter.window === windowNumber(nowMs, window.windowMs) ? counter.count : 0;
    });
  }

  increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string) {
    return incrementAsThrottler(this, key, ttl, limit, throttlerName);
  }

  /** How many keys are held; for tests of the sweep. */
  get size(): number {
    return this.counters.size;
  }

  private counterOf(window: WindowSpec, nowMs: number): Counter {
    const current = windowNumber(nowMs, window.windowMs);
    let counter = this.counters.get(window.key);
    if (!counter) {
      counter = { window: current, count: 0, expiresAtMs: windowEndMs(nowMs, window.windowMs) };
      this.counters.set(window.key, counter);
    } else if (counter.window !== current) {
      Object.assign(counter, { window: current, count: 0, expiresAtMs: windowEndMs(nowMs, window.windowMs) });
    }
    return counter;
  }

  // Sweeping on the request path (at most once a minute) needs no timer to clean up at shutdown.
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    for (const [key, counter] of this.counters) {
      if (counter.expiresAtMs <= nowMs) this.counters.delete(key);
    }
  }
}
