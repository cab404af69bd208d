/** Budget windows and the over-budget decision, as pure functions. */

export interface BudgetLimits {
  dailyTokens: number | null;
  monthlyTokens: number | null;
  dailyUsd: number | null;
  monthlyUsd: number | null;
}

export interface BudgetUsage {
  dayTokens: number;
  monthTokens: number;
  dayUsd: number;
  monthUsd: number;
}

export interface BudgetWindows {
  dayStart: Date;
  monthStart: Date;
  nextDay: Date;
  nextMonth: Date;
}

/** UTC calendar windows: a daily budget resets at midnight UTC, a monthly one on the first of the month. */
export function budgetWindows(now: Date): BudgetWindows {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  return {
    dayStart: new Date(Date.UTC(y, m, d)),
    monthStart: new Date(Date.UTC(y, m, 1)),
    nextDay: new Date(Date.UTC(y, m, d + 1)),
    nextMonth: new Date(Date.UTC(y, m + 1, 1)),
  };
}

export interface BudgetBreach {
  /** Which limit: e.g. `daily_tokens`. */
  limit: 'daily_tokens' | 'monthly_tokens' | 'daily_usd' | 'monthly_usd';
  used: number;
  allowed: number;
  resetsAt: Date;
}

/**
 * The first limit the call would break, or null. Tokens count what was used
 * plus the estimated input of this call; USD counts what was spent (a call's
 * price is only known afterwards), so a USD budget refuses once reached.
 */
export function budgetBreach(
  limits: BudgetLimits,
  usage: BudgetUsage,
  estimatedTokens: number,
  windows: BudgetWindows,
): BudgetBreach | null {
  if (limits.dailyTokens !== null && usage.dayTokens + estimatedTokens > limits.dailyTokens) {
    return {
      limit: 'daily_tokens',
      used: usage.dayTokens,
      allowed: limits.dailyTokens,
      resetsAt: windows.nextDay,
    };
  }
  if (limits.monthlyTokens !== null && usage.monthTokens + estimatedTokens > limits.monthlyTokens) {
    return {
      limit: 'monthly_tokens',
      used: usage.monthTokens,
      allowed: limits.monthlyTokens,
      resetsAt: windows.nextMonth,
    };
  }
  if (limits.dailyUsd !== null && usage.dayUsd >= limits.dailyUsd) {
    return { limit: 'daily_usd', used: usage.dayUsd, allowed: limits.dailyUsd, resetsAt: windows.nextDay };
  }
  if (limits.monthlyUsd !== null && usage.monthUsd >= limits.monthlyUsd) {
    return {
      limit: 'monthly_usd',
      used: usage.monthUsd,
      allowed: limits.monthlyUsd,
      resetsAt: windows.nextMonth,
    };
  }
  return null;
}

/** A rough token count for a text (about four characters a token), for budget checks before a call. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
