import { budgetBreach, budgetWindows, estimateTokens } from './budget-rules';

const none = { dailyTokens: null, monthlyTokens: null, dailyUsd: null, monthlyUsd: null };
const used = { dayTokens: 900, monthTokens: 5000, dayUsd: 1.5, monthUsd: 20 };

describe('budget windows', () => {
  it('are UTC calendar days and months', () => {
    const w = budgetWindows(new Date('2026-12-31T23:30:00Z'));
    expect(w.dayStart.toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(w.nextDay.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(w.monthStart.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(w.nextMonth.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('budgetBreach', () => {
  const windows = budgetWindows(new Date('2026-11-25T10:00:00Z'));

  it('allows anything without limits', () => {
    expect(budgetBreach(none, used, 1_000_000, windows)).toBeNull();
  });

  it('counts the estimated input against token limits', () => {
    expect(budgetBreach({ ...none, dailyTokens: 1000 }, used, 100, windows)).toBeNull();
    expect(budgetBreach({ ...none, dailyTokens: 1000 }, used, 101, windows)).toEqual({
      limit: 'daily_tokens',
      used: 900,
      allowed: 1000,
      resetsAt: windows.nextDay,
    });
    expect(budgetBreach({ ...none, monthlyTokens: 5000 }, used, 1, windows)?.resetsAt).toEqual(
      windows.nextMonth,
    );
  });

  it('refuses USD budgets once reached', () => {
    expect(budgetBreach({ ...none, dailyUsd: 1.6 }, used, 10, windows)).toBeNull();
    expect(budgetBreach({ ...none, dailyUsd: 1.5 }, used, 10, windows)?.limit).toBe('daily_usd');
    expect(budgetBreach({ ...none, monthlyUsd: 20 }, used, 0, windows)?.limit).toBe('monthly_usd');
  });

  it('treats a zero limit as a switch-off', () => {
    expect(budgetBreach({ ...none, dailyTokens: 0 }, { ...used, dayTokens: 0 }, 1, windows)?.limit).toBe(
      'daily_tokens',
    );
  });

  it('estimates about four characters a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
  });
});
