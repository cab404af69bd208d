import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { PreparedQueries } from '../../database/prepared-queries';
import {
  BudgetBreach,
  budgetBreach,
  BudgetLimits,
  BudgetUsage,
  BudgetWindows,
  budgetWindows,
} from './budget-rules';
import { BudgetResponse, PutBudgetDto } from './dto/budgets.dto';
import { AiBudget } from './entities/ai-budget.entity';

export const GLOBAL_ENTRY_POINT = 'global';

// One round trip: the limits of both entry points and, in one pass over the month's rollup rows,
// the use of both windows, globally and for the feature.
const SNAPSHOT_SQL = `SELECT
  (SELECT coalesce(json_agg(b), '[]'::json) FROM (
    SELECT entry_point_id, daily_tokens, monthly_tokens, daily_usd, monthly_usd
    FROM ai_budgets WHERE entry_point_id IN ('global', $3)) b) AS limits,
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE day >= $2), 0)::float8 AS g_day_tokens,
  coalesce(sum(input_tokens + output_tokens), 0)::float8 AS g_month_tokens,
  coalesce(sum(cost_usd) FILTER (WHERE day >= $2), 0)::float8 AS g_day_usd,
  coalesce(sum(cost_usd), 0)::float8 AS g_month_usd,
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE day >= $2 AND feature = $3), 0)::float8 AS f_day_tokens,
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE feature = $3), 0)::float8 AS f_month_tokens,
  coalesce(sum(cost_usd) FILTER (WHERE day >= $2 AND feature = $3), 0)::float8 AS f_day_usd,
  coalesce(sum(cost_usd) FILTER (WHERE feature = $3), 0)::float8 AS f_month_usd
  FROM ai_usage_daily WHERE day >= $1
    -- Use is only summed when a limit exists: from the environment ($4) or stored.
    AND ($4::boolean OR EXISTS (SELECT 1 FROM ai_budgets WHERE entry_point_id IN ('global', $3)))`;

/** What a budget decision needs, read in one query. */
export interface BudgetSnapshot {
  feature: string;
  global: BudgetLimits;
  own: BudgetLimits | null;
  usage: { global: BudgetUsage; feature: BudgetUsage };
  windows: BudgetWindows;
}

interface LimitRow {
  entry_point_id: string;
  daily_tokens: string | number | null;
  monthly_tokens: string | number | null;
  daily_usd: string | number | null;
  monthly_usd: string | number | null;
}

type UsageRow = Record<
  | 'g_day_tokens'
  | 'g_month_tokens'
  | 'g_day_usd'
  | 'g_month_usd'
  | 'f_day_tokens'
  | 'f_month_tokens'
  | 'f_day_usd'
  | 'f_month_usd',
  number
>;

function usageOf(row: UsageRow): { global: BudgetUsage; feature: BudgetUsage } {
  return {
    global: {
      dayTokens: row.g_day_tokens,
      monthTokens: row.g_month_tokens,
      dayUsd: row.g_day_usd,
      monthUsd: row.g_month_usd,
    },
    feature: {
      dayTokens: row.f_day_tokens,
      monthTokens: row.f_month_tokens,
      dayUsd: row.f_day_usd,
      monthUsd: row.f_month_usd,
    },
  };
}

export interface BudgetRefusal extends BudgetBreach {
  entryPoint: string;
}

const num = (v: string | number | null) => (v === null ? null : Number(v));
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

@Injectable()
export class BudgetsService {
  constructor(
    @InjectRepository(AiBudget) private readonly budgets: Repository<AiBudget>,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly prepared: PreparedQueries,
  ) {}

  /** The limits and use a budget decision for `feature` needs. */
  async snapshot(feature: string, now = new Date()): Promise<BudgetSnapshot> {
    const windows = budgetWindows(now);
    const [row] = await this.prepared.queryOutsideTransaction<UsageRow & { limits: LimitRow[] }>(
      SNAPSHOT_SQL,
      [isoDay(windows.monthStart), isoDay(windows.dayStart), feature, hasLimit(this.app.ai.budget)],
    );
    const own = row.limits.find((r) => r.entry_point_id === feature && feature !== GLOBAL_ENTRY_POINT);
    return {
      feature,
      global: this.limitsOf(row.limits.find((r) => r.entry_point_id === GLOBAL_ENTRY_POINT)),
      own: own ? this.limitsOf(own) : null,
      usage: usageOf(row),
      windows,
    };
  }

  /** The first budget (global, then the feature's) a call of `estimatedTokens` would break; null when none. */
  evaluate(snapshot: BudgetSnapshot, estimatedTokens: number): BudgetRefusal | null {
    const globalBreach = budgetBreach(
      snapshot.global,
      snapshot.usage.global,
      estimatedTokens,
      snapshot.windows,
    );
    if (globalBreach) return { ...globalBreach, entryPoint: GLOBAL_ENTRY_POINT };
    const featureBreach =
      snapshot.own && budgetBreach(snapshot.own, snapshot.usage.feature, estimatedTokens, snapshot.windows);
    return featureBreach ? { ...featureBreach, entryPoint: snapshot.feature } : null;
  }

  async list(): Promise<{ items: BudgetResponse[]; total: number }> {
    const rows = await this.budgets.find({ order: { entryPointId: 'ASC' } });
    const items: BudgetResponse[] = [];
    if (!rows.some((r) => r.entryPointId === GLOBAL_ENTRY_POINT) && hasLimit(this.app.ai.budget)) {
      items.push(await this.toResponse(GLOBAL_ENTRY_POINT, 'environment', this.app.ai.budget, null));
    }
    for (const row of rows)
      items.push(await this.toResponse(row.entryPointId, 'database', row, row.updatedAt));
    return { items, total: items.length };
  }

  async put(userId: string, entryPointId: string, dto: PutBudgetDto): Promise<BudgetResponse> {
    await this.budgets.upsert(
      {
        entryPointId,
        dailyTokens: dto.daily_tokens ?? null,
        monthlyTokens: dto.monthly_tokens ?? null,
        dailyUsd: dto.daily_usd ?? null,
        monthlyUsd: dto.monthly_usd ?? null,
        updatedBy: userId,
        updatedAt: new Date(),
      },
      ['entryPointId'],
    );
    const row = await this.budgets.findOneByOrFail({ entryPointId });
    return this.toResponse(entryPointId, 'database', row, row.updatedAt);
  }

  async delete(entryPointId: string): Promise<void> {
    const result = await this.budgets.delete({ entryPointId });
    if (!result.affected) throw new NotFound('budget override', entryPointId);
  }

  private limitsOf(row: LimitRow | undefined): BudgetLimits {
    if (!row) return this.app.ai.budget;
    return {
      dailyTokens: num(row.daily_tokens),
      monthlyTokens: num(row.monthly_tokens),
      dailyUsd: num(row.daily_usd),
      monthlyUsd: num(row.monthly_usd),
    };
  }

  private async toResponse(
    entryPointId: string,
    source: 'database' | 'environment',
    limits: BudgetLimits,
    updatedAt: Date | null,
  ): Promise<BudgetResponse> {
    const { usage } = await this.snapshot(entryPointId);
    const own = entryPointId === GLOBAL_ENTRY_POINT ? usage.global : usage.feature;
    return {
      entry_point_id: entryPointId,
      source,
      daily_tokens: limits.dailyTokens,
      monthly_tokens: limits.monthlyTokens,
      daily_usd: limits.dailyUsd,
      monthly_usd: limits.monthlyUsd,
      usage: {
        day_tokens: own.dayTokens,
        month_tokens: own.monthTokens,
        day_usd: own.dayUsd,
        month_usd: own.monthUsd,
      },
      updated_at: updatedAt?.toISOString() ?? null,
    };
  }
}

function hasLimit(limits: BudgetLimits): boolean {
  return (
    limits.dailyTokens !== null ||
    limits.monthlyTokens !== null ||
    limits.dailyUsd !== null ||
    limits.monthlyUsd !== null
  );
}
