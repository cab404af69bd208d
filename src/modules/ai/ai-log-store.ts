import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PreparedQueries } from '../../database/prepared-queries';
import type { AiLogStatus, StoredMessage } from './entities/ai-log.entity';
import type { AiRunStatus } from './entities/ai-workflow-run.entity';
import type { GuardrailAction } from './guardrails';
import { AttemptBase, span, SpanRecord } from './gateway-steps';
import type { ProviderTarget } from './providers/wire';

export interface LogRecord {
  id: string;
  feature: string;
  provider: string;
  model: string;
  promptKey: string | null;
  promptVersion: number | null;
  status: AiLogStatus;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
  userId: string | null;
  spaceId: string | null;
  guardrailActions: GuardrailAction[];
  messages: StoredMessage[];
  response: string | null;
  error: string | null;
  runId: string;
  attempt: number;
  profileId: string | null;
  replayOf: string | null;
}

/**
 * The run the log belongs to. A run the gateway opened for this one call
 * (`own`) takes the call's status; a caller's run (startRun) is only created
 * if missing and keeps its status until finishRun.
 */
export interface RunRecord {
  own: boolean;
  id: string;
  feature: string;
  status: AiRunStatus;
  userId: string | null;
  spaceId: string | null;
  startedAt: Date;
  finished: boolean;
}

/*
 * One statement writes the log, both daily rollups, the spans and the run:
 * a single statement is atomic, so the rollups never disagree with the logs,
 * and it costs one round trip. It commits asynchronously (synchronous_commit
 * off for this transaction only): the call does not wait for the WAL flush,
 * and a database crash can lose the last few hundred milliseconds of AI
 * logs, never leave one half written.
 */
const ASYNC_COMMIT = `async AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;
const WRITE_SQL = `WITH ${ASYNC_COMMIT},
run AS (
  INSERT INTO ai_workflow_runs AS r (id, feature, status, user_id, space_id, started_at, finished_at)
  VALUES ($20::uuid, $2, $23, $12::uuid, $13::uuid, $24::timestamptz, CASE WHEN $25::boolean THEN now() END)
  ON CONFLICT (id) DO UPDATE SET status = CASE WHEN $22::boolean THEN EXCLUDED.status ELSE r.status END,
    finished_at = CASE WHEN $22::boolean THEN EXCLUDED.finished_at ELSE r.finished_at END
  RETURNING id
),
log AS (
  INSERT INTO ai_logs (id, feature, provider, model, prompt_key, prompt_version, status, input_tokens, output_tokens,
    cost_usd, latency_ms, user_id, space_id, guardrail_actions, messages, response, error, run_id, attempt, profile_id, replay_of)
  VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::uuid, $13::uuid, $14::jsonb, $15::jsonb, $16, $17, $20::uuid,
    $18, $19::uuid, $21::uuid)
  RETURNING created_at
),
usage AS (
  INSERT INTO ai_usage_daily AS u (day, feature, provider, model, calls, failures, blocked, budget_exceeded, guarded_calls,
    input_tokens, output_tokens, cost_usd, latency_ms_total)
  VALUES ((now() AT TIME ZONE 'UTC')::date, $2, $3, $4, 1, ($7 = 'error')::int, ($7 = 'blocked')::int,
    ($7 = 'budget_exceeded')::int, (jsonb_array_length($14::jsonb) > 0)::int, $8, $9, $10, $11)
  ON CONFLICT (day, feature, provider, model) DO UPDATE SET calls = u.calls + 1, failures = u.failures + EXCLUDED.failures,
    blocked = u.blocked + EXCLUDED.blocked, budget_exceeded = u.budget_exceeded + EXCLUDED.budget_exceeded,
    guarded_calls = u.guarded_calls + EXCLUDED.guarded_calls, input_tokens = u.input_tokens + EXCLUDED.input_tokens,
    output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost_usd = u.cost_usd + EXCLUDED.cost_usd,
    latency_ms_total = u.latency_ms_total + EXCLUDED.latency_ms_total
  RETURNING 1
),
people AS (
  INSERT INTO ai_user_usage_daily AS p (day, user_key, feature, calls, failures, input_tokens, output_tokens, cost_usd)
  VALUES ((now() AT TIME ZONE 'UTC')::date, coalesce($12::uuid::text, ''), $2, 1, ($7 <> 'success')::int, $8, $9, $10)
  ON CONFLICT (day, user_key, feature) DO UPDATE SET calls = p.calls + 1, failures = p.failures + EXCLUDED.failures,
    input_tokens = p.input_tokens + EXCLUDED.input_tokens, output_tokens = p.output_tokens + EXCLUDED.output_tokens,
    cost_usd = p.cost_usd + EXCLUDED.cost_usd
  RETURNING 1
),
spans AS (
  INSERT INTO ai_spans (run_id, log_id, attempt, name, status, started_at, duration_ms, detail)
  SELECT $20::uuid, $1::uuid, $18, s.name, s.status, s.started_at, s.duration_ms, s.detail
  FROM jsonb_to_recordset($26::jsonb) AS s(name text, status text, started_at timestamptz, duration_ms float8, detail jsonb)
  RETURNING 1
)
SELECT (SELECT created_at FROM log) AS created_at, (SELECT count(*) FROM usage) + (SELECT count(*) FROM people)
  + (SELECT count(*) FROM spans) + (SELECT count(*) FROM run) AS written,
  (SELECT setting FROM async) AS commit_mode`;

@Injectable()
export class AiLogStore {
  private readonly logger = new Logger('AiLogStore');

  constructor(private readonly prepared: PreparedQueries) {}

  async write(log: LogRecord, spans: SpanRecord[], run: RunRecord): Promise<Date> {
    const [row] = await this.prepared.queryOutsideTransaction<{ created_at: Date }>(WRITE_SQL, [
      log.id,
      log.feature,
      log.provider,
      log.model,
      log.promptKey,
      log.promptVersion,
      log.status,
      log.inputTokens,
      log.outputTokens,
      log.costUsd,
      log.latencyMs,
      log.userId,
      log.spaceId,
      JSON.stringify(log.guardrailActions),
      JSON.stringify(log.messages),
      log.response,
      log.error,
      log.attempt,
      log.profileId,
      log.runId,
      log.replayOf,
      run.own,
      run.status,
      run.startedAt,
      run.finished,
      JSON.stringify(
        spans.map((s) => ({
          name: s.name,
          status: s.status,
          started_at: s.startedAt.toISOString(),
          duration_ms: s.durationMs,
          detail: s.detail,
        })),
      ),
    ]);
    return row.created_at;
  }

  /** The span of the log write itself, which can only be measured once the write is done. */
  async writeSpan(runId: string, logId: string, attempt: number, span: SpanRecord): Promise<void> {
    await this.prepared.queryOutsideTransaction(
      `WITH ${ASYNC_COMMIT} INSERT INTO ai_spans (run_id, log_id, attempt, name, status, started_at, duration_ms, detail)
       SELECT $1::uuid, $2::uuid, $3::smallint, $4, $5, $6::timestamptz, $7::float8, $8::jsonb FROM async`,
      [
        runId,
        logId,
        attempt,
        span.name,
        span.status,
        span.startedAt,
        span.durationMs,
        JSON.stringify(span.detail),
      ],
    );
  }

  /** Writes one attempt of a call: its log entry, the rollups, its spans and its run. */
  async recordAttempt(
    base: AttemptBase,
    target: ProviderTarget,
    attempt: number,
    status: AiLogStatus,
    spans: SpanRecord[],
    outcome: {
      inputTokens?: number;
      outputTokens?: number;
      costUsd?: number;
      response?: string;
      error?: string;
      final?: boolean;
    },
  ): Promise<string> {
    const { call, run } = base;
    const record: LogRecord = {
      id: randomUUID(),
      feature: call.feature,
      provider: target.provider,
      model: target.model,
      promptKey: call.promptKey,
      promptVersion: call.promptVersion,
      status,
      inputTokens: outcome.inputTokens ?? 0,
      outputTokens: outcome.outputTokens ?? 0,
      costUsd: outcome.costUsd ?? 0,
      latencyMs: Math.round(performance.now() - base.started),
      userId: call.userId,
      spaceId: call.spaceId,
      guardrailActions: base.actions,
      messages: base.messages,
      response: outcome.response ?? null,
      error: outcome.error ?? null,
      runId: run.runId,
      attempt,
      profileId: target.profileId,
      replayOf: call.replayOf,
    };
    const finished = status !== 'error' || outcome.final === true;
    const writeStart = performance.now();
    const writeStartedAt = new Date();
    await this.write(record, spans, {
      own: run.own,
      id: run.runId,
      feature: call.feature,
      status: status === 'success' ? 'succeeded' : finished ? 'failed' : 'running',
      userId: call.userId,
      spaceId: call.spaceId,
      startedAt: run.startedAt,
      finished,
    });
    // The write's own span is known only now; the caller does not wait for it to be stored.
    void this.writeSpan(
      run.runId,
      record.id,
      attempt,
      span('log', 'ok', writeStartedAt, performance.now() - writeStart, { status }),
    ).catch((error: unknown) =>
      this.logger.warn(`Could not record the log span of ${record.id}: ${String(error)}`),
    );
    return record.id;
  }
}
