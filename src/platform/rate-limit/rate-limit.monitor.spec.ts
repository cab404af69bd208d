import { Logger } from '@nestjs/common';
import { Clock } from '../clock/clock.service';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitMonitor, STORE_FAILURE_LOG_INTERVAL_MS } from './rate-limit.monitor';

class FakeClock extends Clock {
  at = 1_000_000;
  override now(): number {
    return this.at;
  }
}

describe('RateLimitMonitor', () => {
  it('counts every store failure but logs at most once per interval', async () => {
    const metrics = new MetricsService();
    const clock = new FakeClock();
    const monitor = new RateLimitMonitor(metrics, clock);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      for (let i = 0; i < 100; i++) monitor.storeFailed(new Error('ECONNREFUSED'));
      expect(warn).toHaveBeenCalledTimes(1);
      clock.at += STORE_FAILURE_LOG_INTERVAL_MS;
      monitor.storeFailed(new Error('ECONNREFUSED'));
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn.mock.calls[1][0]).toMatch(
        /fail open.*ECONNREFUSED \(99 more failures since the last report\)/,
      );
    } finally {
      warn.mockRestore();
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^rate_limit_store_errors_total 101$/m);
  });
});
