import { Clock } from '../../src/platform/clock/clock.service';
import type { TestApp } from './app';

/**
 * Five seconds into a minute far from today: requests made while the
 * limiter's clock is pinned there all fall in one minute window, shared with
 * no real traffic, whatever the wall clock does meanwhile.
 */
export const QUIET_MINUTE = Date.UTC(2031, 5, 1, 10, 0, 5);

/** Moves the rate limiter's clock (only the limiter reads it; tokens keep real time). */
export function pinLimiterClock(t: TestApp, at: number) {
  let now = at;
  const spy = jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
  return {
    set: (ms: number) => void (now = ms),
    advance: (ms: number) => void (now += ms),
    get now() {
      return now;
    },
    /** Back to the wall clock. */
    restore: () => spy.mockRestore(),
  };
}
