import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { InstanceContext } from '../../database/instance-context';
import { AiGatewayService } from './ai-gateway.service';
import {
  AiLogDetailResponse,
  AiLogResponse,
  GuardrailImpactResponse,
  PeopleUsageResponse,
  ReplayResponse,
  UsageRowResponse,
  UsageTotalsResponse,
} from './dto/ai-logs.dto';
import { PromptDetailResponse } from './dto/prompts.dto';
import { AiLog } from './entities/ai-log.entity';
import { AiUsageDaily } from './entities/ai-usage-daily.entity';
import { PromptsService } from './prompts.service';
import { AiQueries } from './ai.queries';

export interface AiLogFilter {
  provider?: string;
  status?: string;
  feature?: string;
  skip: number;
  limit: number;
}

/** The first UTC day of a window of `days` days ending today. */
export function sinceDay(days: number, now = new Date()): string {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  return start.toISOString().slice(0, 10);
}

type Row = Record<string, unknown>;

/**
 * Rollup rows of past days change only through calls that straddle
 * midnight: a minute's cache of them keeps usage reports off the database
 * while today's rows are always read fresh.
 */
const EARLIER_DAYS_TTL_MS = 60_000;

interface EarlierDays {
  count: number;
  /** The rows' JSON objects joined by commas, ready to splice into `items`. */
  json: string;
  totals: UsageTotalsResponse;
}

const NO_EARLIER_DAYS: EarlierDays = {
  count: 0,
  json: '',
  totals: { calls: 0, failures: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0 },
};

const n = (v: unknown) => Number(v ?? 0);
const usd = (v: unknown) => Math.round(n(v) * 1e6) / 1e6;

/** AI logs and usage reports; usage reads the daily rollups, never the logs. */
@Injectable()
export class AiLogsService {
  private readonly earlierCache = new Map<string, { days: Promise<EarlierDays>; expires: number }>();

  constructor(
    @InjectRepository(AiLog) private readonly logs: Repository<AiLog>,
    @InjectRepository(AiUsageDaily) private readonly usageRows: Repository<AiUsageDaily>,
    private readonly gateway: AiGatewayService,
    private readonly prompts: PromptsService,
    private readonly queries: AiQueries,
  ) {}

  /** A page of the list as the JSON text of Page<AiLogResponse>, encoded by the database (AiQueries.logPageJson). */
  list(filter: AiLogFilter): Promise<string> {
    return this.queries.logPageJson(
      { provider: filter.provider, status: filter.status, feature: filter.feature },
      { skip: filter.skip, limit: filter.limit },
    );
  }

  /** Whether an AI log entry exists (feedback names the answer it judges by its log id). */
  exists(id: string): Promise<boolean> {
    return this.logs.existsBy({ id });
  }

  async get(id: string): Promise<AiLogDetailResponse> {
    const row = await this.logs.findOneBy({ id });
    if (!row) throw new NotFound('AI log', id);
    return { ...toLogResponse(row), messages: row.messages, response: row.response };
  }

  /**
   * The usage report as encoded JSON (the shape of UsageResponse). Encoding
   * a month of rows was most of this route's cost, so past days are kept
   * encoded with their totals and only today's rows are encoded per request.
   */
  async usageDocument(days: number): Promise<string> {
    const since = sinceDay(days);
    const [recent, earlier] = await Promise.all([this.usageDays(sinceDay(1), null), this.earlierDays(since)]);
    const totals = sumTotals([...recent, earlier.totals]);
    const recentJson = recent.map((row) => JSON.stringify(row)).join(',');
    const separator = recent.length && earlier.count ? ',' : '';
    return (
      `{"days":${days},"since":${JSON.stringify(since)},"items":[${recentJson}${separator}` +
      `${earlier.json}],"totals":${JSON.stringify(totals)}}`
    );
  }

  /** Past days' rows (from `since` to yesterday), encoded, with their totals; kept for a minute. */
  private earlierDays(since: string): Promise<EarlierDays> {
    const today = sinceDay(1);
    if (since >= today) return Promise.resolve(NO_EARLIER_DAYS);
    // The rollups are read from the instance's own database: each instance has its own.
    const key = `${InstanceContext.instanceId()}/${since}/${today}`;
    const now = Date.now();
    const cached = this.earlierCache.get(key);
    if (cached && cached.expires > now) return cached.days;
    const days = this.usageDays(since, today).then((rows) => ({
      count: rows.length,
      json: rows.map((row) => JSON.stringify(row)).join(','),
      totals: sumTotals(rows),
    }));
    for (const [stale, entry] of this.earlierCache) if (entry.expires <= now) this.earlierCache.delete(stale);
    this.earlierCache.set(key, { days, expires: now + EARLIER_DAYS_TTL_MS });
    days.catch(() => this.earlierCache.delete(key));
    return days;
  }

  /** Rollup rows from `since` (inclusive) to `until` (exclusive; null: no end), newest day first. */
  private async usageDays(since: string, until: string | null): Promise<UsageRowResponse[]> {
    // A rollup row is one (day, feature, provider, model): no grouping left to do.
    const rows: Row[] = await this.queries.usageDays(since, until);
    return rows.map((r) => ({
      date: r.date as string,
      model: r.model as string,
      feature: r.feature as string,
      provider: r.provider as string,
      ...totalsOf(r),
    }));
  }

  async people(days: number): Promise<PeopleUsageResponse> {
    const rows: Row[] = await this.queries.peopleUsage(this.usageRows.manager, sinceDay(days));
    return {
      days,
      items: rows.map((r) => ({
        user_id: r.user_key === '' ? null : (r.user_key as string),
        ...totalsOf(r),
      })),
    };
  }

  async guardrailImpact(days: number): Promise<GuardrailImpactResponse> {
    const since = sinceDay(days);
    const [features, kinds]: [Row[], Row[]] = await Promise.all([
      this.queries.guardedCallsByFeature(this.usageRows.manager, since),
      this.queries.guardrailKinds(this.logs.manager, since),
    ]);
    const byFeature = features.map((r) => ({
      feature: r.feature as string,
      calls: n(r.calls),
      guarded_calls: n(r.guarded_calls),
      blocked: n(r.blocked),
      guarded_rate: n(r.calls) ? n(r.guarded_calls) / n(r.calls) : 0,
    }));
    const calls = byFeature.reduce((s, r) => s + r.calls, 0);
    const guarded = byFeature.reduce((s, r) => s + r.guarded_calls, 0);
    return {
      days,
      calls,
      guarded_calls: guarded,
      blocked: byFeature.reduce((s, r) => s + r.blocked, 0),
      guarded_rate: calls ? guarded / calls : 0,
      by_kind: kinds.map((r) => ({
        kind: r.kind as string,
        calls: n(r.calls),
        occurrences: n(r.occurrences),
      })),
      by_feature: byFeature,
    };
  }

  async replay(userId: string, logId: string): Promise<ReplayResponse> {
    const original = await this.logs.findOneBy({ id: logId });
    if (!original) throw new NotFound('AI log', logId);
    const result = await this.gateway.replay(original, userId);
    return {
      log_id: result.logId,
      replay_of: original.id,
      run_id: result.runId ?? '',
      text: result.text,
      provider: result.provider,
      model: result.model,
      input_tokens: result.inputTokens,
      output_tokens: result.outputTokens,
      cost_usd: result.costUsd,
    };
  }

  async savePrompt(userId: string, logId: string): Promise<PromptDetailResponse> {
    const log = await this.logs.findOneBy({ id: logId });
    if (!log) throw new NotFound('AI log', logId);
    if (!log.promptKey) throw new NotFound('prompt of AI log', logId);
    return this.prompts.saveDraft(userId, log.promptKey, log.messages, log.id);
  }
}

function sumTotals(rows: UsageTotalsResponse[]): UsageTotalsResponse {
  return rows.reduce<UsageTotalsResponse>(
    (sum, r) => ({
      calls: sum.calls + r.calls,
      failures: sum.failures + r.failures,
      input_tokens: sum.input_tokens + r.input_tokens,
      output_tokens: sum.output_tokens + r.output_tokens,
      total_tokens: sum.total_tokens + r.total_tokens,
      cost_usd: usd(sum.cost_usd + r.cost_usd),
    }),
    NO_EARLIER_DAYS.totals,
  );
}

function totalsOf(r: Row): UsageTotalsResponse {
  return {
    calls: n(r.calls),
    failures: n(r.failures),
    input_tokens: n(r.input_tokens),
    output_tokens: n(r.output_tokens),
    total_tokens: n(r.input_tokens) + n(r.output_tokens),
    cost_usd: usd(r.cost_usd),
  };
}

export function toLogResponse(row: AiLog): AiLogResponse {
  return {
    id: row.id,
    feature: row.feature,
    provider: row.provider,
    model: row.model,
    prompt_key: row.promptKey,
    prompt_version: row.promptVersion,
    status: row.status,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cost_usd: row.costUsd,
    latency_ms: row.latencyMs,
    user_id: row.userId,
    space_id: row.spaceId,
    guardrail_actions: row.guardrailActions,
    created_at: row.createdAt.toISOString(),
    run_id: row.runId,
    attempt: row.attempt,
    replay_of: row.replayOf,
    error: row.error,
  };
}
