import { answerWorkers, askPrimary } from '../cluster/ipc';
import type { ConsumeResult, WindowSpec } from './rate-limit-windows';
import { incrementAsThrottler, MemoryRateLimitStore, RateLimitStore } from './rate-limit.store';

const CHANNEL = 'rate-limit';

type CounterRequest =
  | { op: 'consume'; windows: readonly WindowSpec[]; nowMs: number }
  | { op: 'peek'; windows: readonly WindowSpec[]; nowMs: number };

/**
 * Counters of a cluster without Redis: kept once, in the primary, which
 * answers every worker over IPC. So WEB_CONCURRENCY workers share one budget
 * exactly, as replicas do through Redis.
 */
export class ClusterRateLimitStore implements RateLimitStore {
  async open(): Promise<void> {}

  async close(): Promise<void> {}

  consume(windows: readonly WindowSpec[], nowMs: number): Promise<ConsumeResult> {
    return askPrimary<ConsumeResult>(CHANNEL, { op: 'consume', windows, nowMs } satisfies CounterRequest);
  }

  peek(windows: readonly WindowSpec[], nowMs: number): Promise<number[]> {
    return askPrimary<number[]>(CHANNEL, { op: 'peek', windows, nowMs } satisfies CounterRequest);
  }

  increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string) {
    return incrementAsThrottler(this, key, ttl, limit, throttlerName);
  }
}

/** In the cluster primary: holds the counters the workers' ClusterRateLimitStore asks for. */
export function serveRateLimitCounters(): void {
  const counters = new MemoryRateLimitStore();
  answerWorkers(CHANNEL, async (payload) => {
    const request = payload as CounterRequest;
    return request.op === 'consume'
      ? counters.consume(request.windows, request.nowMs)
      : counters.peek(request.windows, request.nowMs);
  });
}
