import {
  closestToRunningOut,
  decide,
  fitsAll,
  rateLimitHeaders,
  windowEndMs,
  windowNumber,
  WindowSpec,
} from './rate-limit-windows';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const T = Date.UTC(2031, 0, 1, 10, 0, 0);
const minute = (limit = 60): WindowSpec => ({
  name: 'minute',
  key: '{ip:1.2.3.4}:minute',
  limit,
  windowMs: MINUTE,
});
const hour = (limit = 1000): WindowSpec => ({
  name: 'hour',
  key: '{ip:1.2.3.4}:hour',
  limit,
  windowMs: HOUR,
});

describe('fixed windows', () => {
  it('are aligned to the clock: a window ends at the next whole minute or hour', () => {
    expect(windowNumber(T + 59_999, MINUTE)).toBe(windowNumber(T, MINUTE));
    expect(windowNumber(T + MINUTE, MINUTE)).toBe(windowNumber(T, MINUTE) + 1);
    expect(windowEndMs(T + 12_345, MINUTE)).toBe(T + MINUTE);
    expect(windowEndMs(T + 25 * MINUTE, HOUR)).toBe(T + HOUR);
    expect(windowEndMs(T, MINUTE)).toBe(T + MINUTE);
  });

  it('admit a request only when every window has room', () => {
    expect(fitsAll([minute(), hour()], [59, 999])).toBe(true);
    expect(fitsAll([minute(), hour()], [60, 10])).toBe(false);
    expect(fitsAll([minute(), hour()], [10, 1000])).toBe(false);
  });
});

describe('the window closest to running out', () => {
  const state = (name: string, remaining: number, limit: number) => ({ name, remaining, limit });

  it('is the one with the lowest share left', () => {
    expect(closestToRunningOut([state('minute', 59, 60), state('hour', 939, 1000)]).name).toBe('hour');
    expect(closestToRunningOut([state('minute', 10, 60), state('hour', 939, 1000)]).name).toBe('minute');
  });

  it('is the minute window on a tie', () => {
    expect(closestToRunningOut([state('minute', 30, 60), state('hour', 500, 1000)]).name).toBe('minute');
    expect(closestToRunningOut([state('minute', 0, 60), state('hour', 0, 1000)]).name).toBe('minute');
  });
});

describe('decide', () => {
  it('reports remaining after the request and the reset of the reported window', () => {
    const decision = decide([minute(), hour()], { allowed: true, counts: [1, 1] }, T + 5_000);
    expect(decision.allowed).toBe(true);
    expect(decision.retryAfterSeconds).toBeNull();
    expect(decision.reported).toEqual(
      expect.objectContaining({ name: 'minute', remaining: 59, resetAtMs: T + MINUTE }),
    );
    expect(decision.windows.map((w) => w.remaining)).toEqual([59, 999]);
  });

  it('on a refusal, names the exhausted window and the wait until it resets', () => {
    const decision = decide([minute(), hour()], { allowed: false, counts: [60, 300] }, T + 47_500);
    expect(decision.allowed).toBe(false);
    expect(decision.reported.name).toBe('minute');
    expect(decision.retryAfterSeconds).toBe(13);
    expect(decision.windows.map((w) => w.exhausted)).toEqual([true, false]);
  });

  it('when several windows are exhausted, waits for the last of them', () => {
    const decision = decide([minute(), hour()], { allowed: false, counts: [60, 1000] }, T + 10 * MINUTE);
    expect(decision.reported.name).toBe('hour');
    expect(decision.retryAfterSeconds).toBe(50 * 60);
  });

  it('never asks to wait less than a second', () => {
    const decision = decide([minute()], { allowed: false, counts: [60] }, T + MINUTE - 1);
    expect(decision.retryAfterSeconds).toBe(1);
  });
});

describe('rateLimitHeaders', () => {
  it('writes the X-RateLimit fields for the reported window (reset in Unix seconds) and the IETF fields', () => {
    const now = T + 5_000;
    const endpoint: WindowSpec = { name: 'endpoint', key: 'k', limit: 30, windowMs: MINUTE };
    const decision = decide([minute(300), endpoint, hour(10_000)], { allowed: true, counts: [1, 1, 1] }, now);
    expect(rateLimitHeaders(decision, now)).toEqual({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '29',
      'X-RateLimit-Reset': String((T + MINUTE) / 1000),
      'RateLimit-Policy': '300;w=60, 30;w=60, 10000;w=3600',
      RateLimit: 'limit=30, remaining=29, reset=55',
    });
  });
});
