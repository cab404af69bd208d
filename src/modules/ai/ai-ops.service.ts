import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { Page } from '../../common/http/page.dto';
import { AiConfigService } from './ai-config.service';
import { sinceDay, toLogResponse } from './ai-logs.service';
import { BudgetsService } from './budgets.service';
import {
  AiOverviewResponse,
  OverviewWindow,
  WorkflowRunDetailResponse,
  WorkflowRunResponse,
} from './dto/ai-ops.dto';
import { AiLog } from './entities/ai-log.entity';
import { AiSpan } from './entities/ai-span.entity';
import { AiWorkflowRun } from './entities/ai-workflow-run.entity';
import { AiQueries } from './ai.queries';

export interface RunFilter {
  feature?: string;
  status?: string;
  skip: number;
  limit: number;
}

type Row = Record<string, unknown>;
const n = (v: unknown) => Number(v ?? 0);

/** How many of the latest provider calls decide the provider's health. */
const HEALTH_SAMPLE = 20;

/** Health from the latest provider calls: all failing is down, some failing degraded. */
export function providerHealth(recent: { status: string }[]): 'healthy' | 'degraded' | 'down' | 'unknown' {
  if (!recent.length) return 'unknown';
  const errors = recent.filter((r) => r.status === 'error').length;
  if (errors === recent.length) return 'down';
  return errors / recent.length > 0.2 ? 'degraded' : 'healthy';
}

@Injectable()
export class AiOpsService {
  constructor(
    @InjectRepository(AiWorkflowRun) private readonly runs: Repository<AiWorkflowRun>,
    @InjectRepository(AiLog) private readonly logs: Repository<AiLog>,
    @InjectRepository(AiSpan) private readonly spans: Repository<AiSpan>,
    @Inject(AiConfigService) private readonly configs: AiConfigService,
    private readonly budgets: BudgetsService,
    private readonly queries: AiQueries,
  ) {}

  async overview(): Promise<AiOverviewResponse> {
    const [config, recent, day, week, budgets] = await Promise.all([
      this.configs.effective(),
      this.queries.recentOutcomes(this.logs.manager, HEALTH_SAMPLE),
      this.queries.lastDay(this.logs.manager) as Promise<Row[]>,
      this.queries.usageSince(this.logs.manager, sinceDay(7)) as Promise<Row[]>,
      this.budgets.list(),
    ]);
    const health = providerHealth(recent);
    const lastSuccess = recent.find((r) => r.status === 'success');
    const lastError = recent.find((r) => r.status === 'error');
    const last24 = toWindow(day[0]);
    const last7 = toWindow(week[0]);
    const budgetUse = budgets.items.map((b) => ({
      entry_point_id: b.entry_point_id,
      daily_tokens_ratio: ratio(b.usage.day_tokens, b.daily_tokens),
      monthly_tokens_ratio: ratio(b.usage.month_tokens, b.monthly_tokens),
      daily_usd_ratio: ratio(b.usage.day_usd, b.daily_usd),
      monthly_usd_ratio: ratio(b.usage.month_usd, b.monthly_usd),
    }));
    const remediation: string[] = [];
    if (!config) remediation.push('No AI provider is configured: create one with POST /admin/ai-config/.');
    else if (!config.isEnabled)
      remediation.push('AI is switched off: set is_enabled to true in /admin/ai-config/.');
    if (health === 'down' || health === 'degraded') {
      remediation.push(
        `The provider is ${health}: check it with POST /admin/ai-config/test-connection and consider a fallback profile in /admin/ai-model-routing/profiles.`,
      );
    }
    for (const b of budgetUse) {
      const worst = Math.max(
        ...[b.daily_tokens_ratio, b.monthly_tokens_ratio, b.daily_usd_ratio, b.monthly_usd_ratio].map(
          (r) => r ?? 0,
        ),
      );
      if (worst >= 0.8) {
        remediation.push(
          `The ${b.entry_point_id} budget is ${Math.round(worst * 100)}% used: raise it in /admin/ai-budgets or expect refusals.`,
        );
      }
    }
    if (last24.blocked > 0) {
      remediation.push(
        `${last24.blocked} call(s) were blocked for prompt injection in the last 24 hours: review them in /admin/ai-logs?status=blocked.`,
      );
    }
    return {
      generated_at: new Date().toISOString(),
      provider: {
        configured: config !== null,
        source: config?.source ?? null,
        provider: config?.provider ?? null,
        model: config?.modelName ?? null,
        is_enabled: config?.isEnabled ?? false,
        health,
        sampled_calls: recent.length,
        last_success_at: lastSuccess?.created_at.toISOString() ?? null,
        last_error_at: lastError?.created_at.toISOString() ?? null,
        last_error: lastError?.error ?? null,
      },
      last_24h: last24,
      last_7d: last7,
      budgets: budgetUse,
      remediation,
    };
  }

  async listRuns(filter: RunFilter): Promise<Page<WorkflowRunResponse>> {
    const qb = this.runs.createQueryBuilder('r');
    if (filter.feature) qb.andWhere('r.feature = :feature', { feature: filter.feature });
    if (filter.status) qb.andWhere('r.status = :status', { status: filter.status });
    const [rows, total] = await qb
      .orderBy('r.startedAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(filter.skip)
      .take(filter.limit)
      .getManyAndCount();
    const totals: Row[] = rows.length
      ? await this.queries.runTotals(
          this.logs.manager,
          rows.map((r) => r.id),
        )
      : [];
    const byRun = new Map(totals.map((t) => [t.run_id as string, t]));
    return { items: rows.map((r) => toRunResponse(r, byRun.get(r.id))), total };
  }

  async getRun(id: string): Promise<WorkflowRunDetailResponse> {
    const run = await this.runs.findOneBy({ id });
    if (!run) throw new NotFound('AI workflow run', id);
    const [logs, spans] = await Promise.all([
      this.logs.find({ where: { runId: id }, order: { createdAt: 'ASC', attempt: 'ASC' } }),
      this.spans.find({ where: { runId: id }, order: { startedAt: 'ASC' } }),
    ]);
    const totals = {
      calls: logs.length,
      tokens: logs.reduce((s, l) => s + l.inputTokens + l.outputTokens, 0),
      cost_usd: logs.reduce((s, l) => s + l.costUsd, 0),
    };
    return {
      ...toRunResponse(run, totals),
      calls: logs.map((log) => ({
        ...toLogResponse(log),
        spans: spans
          .filter((s) => s.logId === log.id)
          .map((s) => ({
            name: s.name,
            status: s.status,
            started_at: s.startedAt.toISOString(),
            duration_ms: s.durationMs,
            detail: s.detail,
          })),
      })),
    };
  }
}

function ratio(used: number, limit: number | null): number | null {
  if (limit === null) return null;
  return limit === 0 ? 1 : Math.round((used / limit) * 1000) / 1000;
}

function toWindow(r: Row): OverviewWindow {
  return {
    calls: n(r.calls),
    failures: n(r.failures),
    blocked: n(r.blocked),
    budget_exceeded: n(r.budget_exceeded),
    guarded_calls: n(r.guarded_calls),
    input_tokens: n(r.input_tokens),
    output_tokens: n(r.output_tokens),
    cost_usd: Math.round(n(r.cost_usd) * 1e6) / 1e6,
    avg_latency_ms: Math.round(n(r.avg_latency_ms)),
    failure_rate: n(r.calls) ? n(r.failures) / n(r.calls) : 0,
  };
}

function toRunResponse(run: AiWorkflowRun, totals: Row | undefined): WorkflowRunResponse {
  return {
    id: run.id,
    feature: run.feature,
    status: run.status,
    user_id: run.userId,
    space_id: run.spaceId,
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    duration_ms: run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
    call_count: n(totals?.calls),
    total_tokens: n(totals?.tokens),
    cost_usd: Math.round(n(totals?.cost_usd) * 1e6) / 1e6,
  };
}
