import { MemoryRateLimitStore } from './rate-limit.store';
import { WindowSpec } from './rate-limit-windows';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T = Date.UTC(2031, 0, 1, 10, 0, 0);
const windows = (minuteLimit: number, hourLimit: number, tracker = 'ip:1.2.3.4'): WindowSpec[] => [
  { name: 'minute', key: `{${tracker}}:minute`, limit: minuteLimit, windowMs: MINUTE },
  { name: 'hour', key: `{${tracker}}:hour`, limit: hourLimit, windowMs: HOUR },
];

describe('MemoryRateLimitStore', () => {
  let store: MemoryRateLimitStore;
  beforeEach(() => (store = new MemoryRateLimitStore()));

  it('counts up to the limit and refuses the next request', async () => {
    for (let i = 1; i <= 3; i++) {
      expect(await store.consume(windows(3, 100), T)).toEqual({ allowed: true, counts: [i, i] });
    }
    expect(await store.consume(windows(3, 100), T)).toEqual({ allowed: false, counts: [3, 3] });
  });

  it('does not charge the hour for requests the minute refused', async () => {
    for (let i = 0; i < 3; i++) await store.consume(windows(3, 100), T);
    for (let i = 0; i < 5; i++) await store.consume(windows(3, 100), T);
    expect(await store.peek(windows(3, 100), T + MINUTE)).toEqual([0, 3]);
  });

  it('does not charge the minute for requests the hour refused', async () => {
    for (let m = 0; m < 2; m++) {
      for (let i = 0; i < 2; i++) await store.consume(windows(2, 4), T + m * MINUTE);
    }
    const refused = await store.consume(windows(2, 4), T + 2 * MINUTE);
    expect(refused).toEqual({ allowed: false, counts: [0, 4] });
    expect(await store.peek(windows(2, 4), T + 2 * MINUTE)).toEqual([0, 4]);
  });

  it('starts a new window afresh and keeps buckets apart', async () => {
    await store.consume(windows(1, 10), T);
    expect((await store.consume(windows(1, 10), T + 59_999)).allowed).toBe(false);
    expect((await store.consume(windows(1, 10, 'user:u1'), T)).allowed).toBe(true);
    expect(await store.consume(windows(1, 10), T + MINUTE)).toEqual({ allowed: true, counts: [1, 2] });
  });

  it('peeks without counting', async () => {
    await store.consume(windows(5, 10), T);
    await store.peek(windows(5, 10), T);
    await store.peek(windows(5, 10), T);
    expect(await store.peek(windows(5, 10), T)).toEqual([1, 1]);
  });

  it('sweeps counters of past windows', async () => {
    await store.consume(windows(5, 10, 'ip:a'), T);
    await store.consume(windows(5, 10, 'ip:b'), T);
    expect(store.size).toBe(4);
    await store.consume(windows(5, 10, 'ip:c'), T + 2 * HOUR);
    expect(store.size).toBe(2);
  });

  it("keeps the throttler's storage contract", async () => {
    expect(await store.increment('k', MINUTE, 1, 0, 'minute')).toEqual(
      expect.objectContaining({ totalHits: 1, isBlocked: false }),
    );
    expect(await store.increment('k', MINUTE, 1, 0, 'minute')).toEqual(
      expect.objectContaining({ totalHits: 2, isBlocked: true }),
    );
  });
});
