import { HeldLease, leasesToRenew, renewalIntervalMs } from './lease';

describe('job leases', () => {
  it('renews three times per lease', () => {
    expect(renewalIntervalMs(30_000)).toBe(10_000);
    expect(renewalIntervalMs(3_000)).toBe(1_000);
    expect(renewalIntervalMs(1)).toBe(1);
  });

  it('keeps renewing a job within its time limit and lets a hung one go', () => {
    const lease = (id: string, startedAt: number, timeoutMs: number): HeldLease => ({
      id,
      attempt: 1,
      startedAt,
      timeoutMs,
    });
    const held = [lease('young', 9_000, 60_000), lease('edge', 0, 10_000), lease('hung', 0, 5_000)];
    expect(leasesToRenew(held, 10_000).map((l) => l.id)).toEqual(['young']);
    expect(leasesToRenew(held, 9_999).map((l) => l.id)).toEqual(['young', 'edge']);
    expect(leasesToRenew([], 0)).toEqual([]);
  });
});
