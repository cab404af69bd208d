import Redis from 'ioredis';
import { incrementAsThrottler, RateLimitStore } from './rate-limit.store';
import { ConsumeResult, windowEndMs, windowNumber, WindowSpec } from './rate-limit-windows';

/**
 * Checks every window's counter and, only when all have room, increments
 * them all, in one atomic step on the Redis server. KEYS are the window
 * counters; ARGV holds each window's limit and TTL in milliseconds. Answers
 * {fits (1 or 0), count per window}.
 */
const CONSUME_SCRIPT = `
local counts = {}
local fits = 1
for i = 1, #KEYS do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] >= tonumber(ARGV[i * 2 - 1]) then fits = 0 end
end
if fits == 1 then
  for i = 1, #KEYS do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[i * 2]) end
  end
end
table.insert(counts, 1, fits)
return counts
`;

// A counter outlives its window a little, so replicas with slightly skewed clocks still find it.
const TTL_SLACK_MS = 5_000;

type ConsumeCommand = (numberOfKeys: number, ...keysAndArgs: Array<string | number>) => Promise<number[]>;

/**
 * Short timeouts, no offline queue and one retry: when Redis is down or
 * hangs, a command fails within milliseconds (at most the command timeout)
 * and the guard fails open, instead of requests queueing behind a
 * reconnect. The client keeps reconnecting in the background.
 */
export function createRedisClient(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 250,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    // A socket that never connected is otherwise waited for 2 s at shutdown.
    disconnectTimeout: 100,
  });
}

/**
 * Fixed-window counters in Redis, shared by every replica: one key per
 * bucket and window number, expiring after its window. Keys are
 * `<prefix>rl:{<tracker>}:<window name>:<window number>`; the braces keep
 * one caller's keys in one Redis Cluster slot, as a script needs.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly consumeScript: ConsumeCommand;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('verityRateLimitConsume', { lua: CONSUME_SCRIPT });
    const command = (redis as unknown as { verityRateLimitConsume: ConsumeCommand }).verityRateLimitConsume;
    this.consumeScript = command.bind(redis);
  }

  /** A failed first connection is reported by the client's error listener; it goes on retrying. */
  async open(): Promise<void> {
    await this.redis.connect().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  async consume(windows: readonly WindowSpec[], nowMs: number): Promise<ConsumeResult> {
    const keys = windows.map((window) => this.keyOf(window, nowMs));
    const args = windows.flatMap((window) => [
      window.limit,
      windowEndMs(nowMs, window.windowMs) - nowMs + TTL_SLACK_MS,
    ]);
    const [fits, ...counts] = await this.consumeScript(keys.length, ...keys, ...args);
    return { allowed: fits === 1, counts };
  }

  async peek(windows: readonly WindowSpec[], nowMs: number): Promise<number[]> {
    const values = await this.redis.mget(windows.map((window) => this.keyOf(window, nowMs)));
    return values.map((value) => Number(value ?? 0));
  }

  increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string) {
    return incrementAsThrottler(this, key, ttl, limit, throttlerName);
  }

  private keyOf(window: WindowSpec, nowMs: number): string {
    return `${this.prefix}rl:${window.key}:${windowNumber(nowMs, window.windowMs)}`;
  }
}
