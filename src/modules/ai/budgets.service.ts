import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
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
import { AiQueries } from './ai.queries';
import { AiConfigCache, LimitRow } from './ai-config.cache';

export const GLOBAL_ENTRY_POINT = 'global';

/** What a budget decision needs, read in one query. */
export interface BudgetSnapshot {
  feature: string;
  global: BudgetLimits;
  own: BudgetLimits | null;
  usage: { global: BudgetUsage; feature: BudgetUsage };
  windows: BudgetWindows;
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
const NOTHING_USED: BudgetUsage = { dayTokens: 0, monthTokens: 0, dayUsd: 0, monthUsd: 0 };
const NO_USAGE = { global: NOTHING_USED, feature: NOTHING_USED };
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

@Injectable()
export class BudgetsService {
  constructor(
    @InjectRepository(AiBudget) private readonly budgets: Repository<AiBudget>,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly queries: AiQueries,
    private readonly cache: AiConfigCache,
  ) {}

  /**
   * The limits (from memory, AiConfigCache) and use a budget decision for
   * `feature` needs. The use is read (one statement over the month's rollup
   * rows) only when a limit applies, or with `withUsage` (the admin list).
   */
  async snapshot(feature: string, now = new Date(), withUsage = false): Promise<BudgetSnapshot> {
    const windows = budgetWindows(now);
    const { budgets } = (await this.cache.view()).own;
    const stored = feature === GLOBAL_ENTRY_POINT ? undefined : budgets.get(feature);
    const global = this.limitsOf(budgets.get(GLOBAL_ENTRY_POINT));
    const own = stored ? this.limitsOf(stored) : null;
    const usage =
      withUsage || hasLimit(global) || (own !== null && hasLimit(own))
        ? usageOf(
            await this.queries.budgetUsage<UsageRow>(
              isoDay(windows.monthStart),
              isoDay(windows.dayStart),
              feature,
            ),
          )
        : NO_USAGE;
    return { feature, global, own, usage, windows };
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
    await this.cache.write((em) =>
      em.upsert(
        AiBudget,
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
      ),
    );
    const row = await this.budgets.findOneByOrFail({ entryPointId });
    return this.toResponse(entryPointId, 'database', row, row.updatedAt);
  }

  async delete(entryPointId: string): Promise<void> {
    const result = await this.cache.write((em) => em.delete(AiBudget, { entryPointId }));
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
    const { usage } = await this.snapshot(entryPointId, new Date(), true);
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
