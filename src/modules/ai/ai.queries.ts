import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PreparedQueries } from '../../database/prepared-queries.runner';

/** The columns of a stored provider configuration (ai_configs), as ConfigRow holds them. */
const CONFIG_COLUMNS = `id, provider, model_name, api_key_sealed, api_base_url, temperature, max_tokens,
  is_enabled, created_at, updated_at`;

// One statement, so one snapshot: the counter and everything the gateway keeps in memory (AiConfigCache).
const CONFIG_SNAPSHOT_SQL = `SELECT (SELECT version FROM ai_config_version) AS version,
  (SELECT row_to_json(c) FROM (SELECT ${CONFIG_COLUMNS} FROM ai_configs WHERE scope = $1) c) AS config,
  (SELECT coalesce(json_object_agg(feature, profile_id), '{}'::json) FROM ai_model_routes) AS routes,
  (SELECT coalesce(json_agg(p), '[]'::json) FROM (
    SELECT id, provider, model_name, temperature, max_tokens, api_key_sealed, api_base_url, fallback_profile_id
    FROM ai_model_profiles) p) AS profiles,
  (SELECT coalesce(json_agg(v ORDER BY v.version), '[]'::json) FROM (
    SELECT prompt_key, version, system, template, variables FROM ai_prompt_versions WHERE status = 'active') v) AS prompts,
  (SELECT coalesce(json_agg(b), '[]'::json) FROM (
    SELECT entry_point_id, daily_tokens, monthly_tokens, daily_usd, monthly_usd FROM ai_budgets) b) AS budgets`;

// In one pass over the month's rollup rows, the use of both windows, globally and for the feature.
const BUDGET_USAGE_SQL = `SELECT
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE day >= $2), 0)::float8 AS g_day_tokens,
  coalesce(sum(input_tokens + output_tokens), 0)::float8 AS g_month_tokens,
  coalesce(sum(cost_usd) FILTER (WHERE day >= $2), 0)::float8 AS g_day_usd,
  coalesce(sum(cost_usd), 0)::float8 AS g_month_usd,
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE day >= $2 AND feature = $3), 0)::float8 AS f_day_tokens,
  coalesce(sum(input_tokens + output_tokens) FILTER (WHERE feature = $3), 0)::float8 AS f_month_tokens,
  coalesce(sum(cost_usd) FILTER (WHERE day >= $2 AND feature = $3), 0)::float8 AS f_day_usd,
  coalesce(sum(cost_usd) FILTER (WHERE feature = $3), 0)::float8 AS f_month_usd
  FROM ai_usage_daily WHERE day >= $1`;

const USAGE_SQL = `SELECT to_char(day, 'YYYY-MM-DD') AS date, model, feature, provider, calls,
  failures + blocked + budget_exceeded AS failures, input_tokens, output_tokens, cost_usd::float8 AS cost_usd
  FROM ai_usage_daily WHERE day >= $1::date AND ($2::date IS NULL OR day < $2::date)
  ORDER BY day DESC, model COLLATE "C", feature COLLATE "C", provider COLLATE "C"`;

/*
 * One statement writes the log, both daily rollups, the spans and the run:
 * a single statement is atomic, so the rollups never disagree with the logs,
 * and it costs one round trip. It commits asynchronously (synchronous_commit
 * off for this transaction only): the call does not wait for the WAL flush,
 * and a database crash can lose the last few hundred milliseconds of AI
 * logs, never leave one half written.
 */
const ASYNC_COMMIT = `async AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;
const WRITE_LOG_SQL = `WITH ${ASYNC_COMMIT},
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

const WRITE_SPAN_SQL = `WITH ${ASYNC_COMMIT} INSERT INTO ai_spans (run_id, log_id, attempt, name, status, started_at, duration_ms, detail)
       SELECT $1::uuid, $2::uuid, $3::smallint, $4, $5, $6::timestamptz, $7::float8, $8::jsonb FROM async`;

/**
 * One log of the list (AiLogResponse's fields, in its order) over the row `p`:
 * times as JavaScript's toISOString writes them (milliseconds, truncated). The
 * same record as toLogResponse gives a single log; ai-admin.e2e holds the two equal.
 */
const LOG_ITEM_JSON = `json_build_object(
  'id', p.id, 'feature', p.feature, 'provider', p.provider, 'model', p.model, 'prompt_key', p.prompt_key,
  'prompt_version', p.prompt_version, 'status', p.status, 'input_tokens', p.input_tokens,
  'output_tokens', p.output_tokens, 'cost_usd', p.cost_usd, 'latency_ms', p.latency_ms, 'user_id', p.user_id,
  'space_id', p.space_id, 'guardrail_actions', p.guardrail_actions,
  'created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'run_id', p.run_id, 'attempt', p.attempt, 'replay_of', p.replay_of, 'error', p.error)`;

/** The rollup column that counts the logs of a status (`any`: no status filter). */
const ROLLUP_CALLS: Record<string, string> = {
  any: 'u.calls',
  success: 'u.calls - u.failures - u.blocked - u.budget_exceeded',
  error: 'u.failures',
  blocked: 'u.blocked',
  budget_exceeded: 'u.budget_exceeded',
};

/** A row of the usage reports: sums come back as numeric text or numbers. */
export type AiRow = Record<string, unknown>;

/**
 * The AI gateway's raw SQL. The gateway's configuration (provider
 * configuration, routes, active prompts, budget limits) is read in one
 * statement when it changed and kept in memory (AiConfigCache). The
 * statements of a call (budget use when a limit applies, the log write,
 * workflow runs) are each one round trip of plain SQL with JSON
 * aggregation, CTE writes and asynchronous commit, where the repository API
 * would need several; they take no `em` (they never join a transaction) and
 * run on the pool as named prepared statements through PreparedQueries,
 * their executor. The reports and upkeep statements (usage, overview,
 * retention, prompt numbering) aggregate with FILTER and LATERAL, delete in
 * batches or take advisory locks, and take the caller's `em`. Indexes:
 * ai_configs' unique scope; ai_prompt_versions' (prompt_key, status) index
 * (the configuration snapshot reads the small routes, profiles and budgets
 * tables whole); the ai_usage_daily and ai_user_usage_daily primary keys
 * (day first) for rollups, upserts and reports; ai_logs' created_at index
 * (and its partial index on guardrail_actions) for the overview, the
 * guardrail report and retention, its run_id index for run totals;
 * ai_workflow_runs' primary key and started_at index.
 */
@Injectable()
export class AiQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  // The gateway's configuration, read when it changed (AiConfigCache), through the database's `em`.

  /** Everything the gateway keeps of one database's configuration, with the counter's version (one snapshot). */
  async configSnapshot<Row>(em: EntityManager, scope: string): Promise<Row> {
    const [row] = (await em.query(CONFIG_SNAPSHOT_SQL, [scope])) as Row[];
    return row;
  }

  /** The database's configuration version (ai_config_version), bumped by every configuration write. */
  async configVersion(em: EntityManager): Promise<number> {
    const [row] = (await em.query('SELECT version FROM ai_config_version')) as { version: string }[];
    return Number(row.version);
  }

  // The gateway's hot path, on PreparedQueries.

  /** The use a budget decision needs (see BUDGET_USAGE_SQL), only asked when a limit applies. */
  async budgetUsage<Row>(monthStart: string, dayStart: string, feature: string): Promise<Row> {
    const [row] = await this.prepared.queryOutsideTransaction<Row>(BUDGET_USAGE_SQL, [
      monthStart,
      dayStart,
      feature,
    ]);
    return row;
  }

  /** Rollup rows from `since` (inclusive) to `until` (exclusive; null: no end), newest day first. */
  async usageDays(since: string, until: string | null): Promise<AiRow[]> {
    return this.prepared.queryOutsideTransaction<AiRow>(USAGE_SQL, [since, until]);
  }

  /** Writes a log entry, the rollups, its spans and its run (WRITE_LOG_SQL's $1…$26, in order). */
  async writeLog(params: unknown[]): Promise<Date> {
    const [row] = await this.prepared.queryOutsideTransaction<{ created_at: Date }>(WRITE_LOG_SQL, params);
    return row.created_at;
  }

  /** Writes one span: $1 run, $2 log, $3 attempt, $4 name, $5 status, $6 start, $7 duration, $8 detail (JSON). */
  async writeSpan(params: unknown[]): Promise<void> {
    await this.prepared.queryOutsideTransaction(WRITE_SPAN_SQL, params);
  }

  async startRun(id: string, feature: string, userId: string | null, spaceId: string | null): Promise<void> {
    await this.prepared.queryOutsideTransaction(
      `INSERT INTO ai_workflow_runs (id, feature, status, user_id, space_id, started_at) VALUES ($1, $2, 'running', $3, $4, now())`,
      [id, feature, userId, spaceId],
    );
  }

  async finishRun(runId: string, status: 'succeeded' | 'failed'): Promise<void> {
    await this.prepared.queryOutsideTransaction(
      `UPDATE ai_workflow_runs SET status = $2, finished_at = now() WHERE id = $1`,
      [runId, status],
    );
  }

  // Reports and upkeep, through the caller's `em`.

  /** Usage per user since `since`, heaviest first (at most 500). */
  async peopleUsage(em: EntityManager, since: string): Promise<AiRow[]> {
    return (await em.query(
      `SELECT user_key, sum(calls) AS calls, sum(failures) AS failures, sum(input_tokens) AS input_tokens,
         sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
       FROM ai_user_usage_daily WHERE day >= $1
       GROUP BY user_key ORDER BY sum(input_tokens + output_tokens) DESC, user_key LIMIT 500`,
      [since],
    )) as AiRow[];
  }

  async guardedCallsByFeature(em: EntityManager, since: string): Promise<AiRow[]> {
    return (await em.query(
      `SELECT feature, sum(calls) AS calls, sum(guarded_calls) AS guarded_calls, sum(blocked) AS blocked
         FROM ai_usage_daily WHERE day >= $1 GROUP BY feature ORDER BY feature`,
      [since],
    )) as AiRow[];
  }

  /** Only logs a guardrail acted on, through a partial index. */
  async guardrailKinds(em: EntityManager, since: string): Promise<AiRow[]> {
    return (await em.query(
      `SELECT a->>'kind' AS kind, count(DISTINCT l.id) AS calls, sum((a->>'count')::int) AS occurrences
         FROM ai_logs l CROSS JOIN LATERAL jsonb_array_elements(l.guardrail_actions) a
         WHERE l.guardrail_actions <> '[]'::jsonb AND l.created_at >= $1::date
         GROUP BY 1 ORDER BY 1`,
      [since],
    )) as AiRow[];
  }

  /** The latest `sample` successful or failed calls (`sample` is an integer constant). */
  async recentOutcomes(
    em: EntityManager,
    sample: number,
  ): Promise<Array<{ status: string; error: string | null; created_at: Date }>> {
    return (await em.query(
      `SELECT status, error, created_at FROM ai_logs WHERE status IN ('success', 'error')
         ORDER BY created_at DESC LIMIT ${sample}`,
    )) as Array<{ status: string; error: string | null; created_at: Date }>;
  }

  /** The last 24 hours of calls, from the logs. */
  async lastDay(em: EntityManager): Promise<AiRow[]> {
    return (await em.query(
      `SELECT count(*) AS calls, count(*) FILTER (WHERE status = 'error') AS failures,
           count(*) FILTER (WHERE status = 'blocked') AS blocked,
           count(*) FILTER (WHERE status = 'budget_exceeded') AS budget_exceeded,
           count(*) FILTER (WHERE guardrail_actions <> '[]'::jsonb) AS guarded_calls,
           coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
           coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(avg(latency_ms), 0) AS avg_latency_ms
         FROM ai_logs WHERE created_at >= now() - interval '24 hours'`,
    )) as AiRow[];
  }

  /** The calls since `since`, from the daily rollups. */
  async usageSince(em: EntityManager, since: string): Promise<AiRow[]> {
    return (await em.query(
      `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(failures), 0) AS failures,
           coalesce(sum(blocked), 0) AS blocked, coalesce(sum(budget_exceeded), 0) AS budget_exceeded,
           coalesce(sum(guarded_calls), 0) AS guarded_calls, coalesce(sum(input_tokens), 0) AS input_tokens,
           coalesce(sum(output_tokens), 0) AS output_tokens, coalesce(sum(cost_usd), 0) AS cost_usd,
           CASE WHEN sum(calls) > 0 THEN sum(latency_ms_total)::float8 / sum(calls) ELSE 0 END AS avg_latency_ms
         FROM ai_usage_daily WHERE day >= $1`,
      [since],
    )) as AiRow[];
  }

  /**
   * A page of the log list as JSON text, `{"items": [...], "total": n}` in
   * AiLogResponse's shape, in one statement: the newest `limit` logs from
   * `skip` matching the filters (ai_logs_created_idx, or the feature,
   * provider or status index with created_at), and how many match, exactly,
   * without counting a million rows: the rollups (written by the same
   * statement as each log, so they agree with the logs at any snapshot) give
   * the whole days, and only the oldest day is counted in the logs: it may be
   * partial, because retention deletes the oldest logs first (deleteOldLogs),
   * and every day after it still has all its logs, today included (its rollup
   * grows in the statements that write its logs). Each filter has its rollup
   * column: provider and feature are keys, a status is a counter (success:
   * the calls that are none of the others). The database encodes the answer.
   * Outside any transaction, on the pool.
   */
  async logPageJson(
    filter: { provider?: string; status?: string; feature?: string },
    page: { skip: number; limit: number },
  ): Promise<string> {
    const params: unknown[] = [page.skip, page.limit];
    const logRules: string[] = [];
    const rollupRules: string[] = [];
    for (const column of ['provider', 'feature'] as const) {
      const value = filter[column];
      if (value === undefined) continue;
      params.push(value);
      logRules.push(`l.${column} = $${params.length}`);
      rollupRules.push(`u.${column} = $${params.length}`);
    }
    if (filter.status !== undefined) {
      params.push(filter.status);
      logRules.push(`l.status = $${params.length}`);
    }
    const calls = ROLLUP_CALLS[filter.status ?? 'any'];
    const logs = logRules.length ? `AND ${logRules.join(' AND ')}` : '';
    const rollups = rollupRules.length ? `AND ${rollupRules.join(' AND ')}` : '';
    // Named: one text per combination of filters, each planned once per connection.
    const [row] = await this.prepared.queryOutsideTransaction<{ document: string }>(
      `WITH bounds AS (
         SELECT d.first_day, ((d.first_day + 1)::timestamp AT TIME ZONE 'UTC') AS first_day_end
           FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first_day FROM ai_logs) d),
       page AS (
         SELECT l.* FROM ai_logs l WHERE TRUE ${logs} ORDER BY l.created_at DESC, l.id DESC OFFSET $1 LIMIT $2)
       SELECT json_build_object(
         'items', coalesce((SELECT json_agg(${LOG_ITEM_JSON} ORDER BY p.created_at DESC, p.id DESC) FROM page p), '[]'),
         'total', (SELECT count(*) FROM ai_logs l WHERE l.created_at < b.first_day_end ${logs})
                + (SELECT coalesce(sum(${calls}), 0) FROM ai_usage_daily u WHERE u.day > b.first_day ${rollups})
       )::text AS document
         FROM bounds b`,
      params,
    );
    return row.document;
  }

  /** Calls, tokens and cost per workflow run. */
  async runTotals(em: EntityManager, runIds: string[]): Promise<AiRow[]> {
    return (await em.query(
      `SELECT run_id, count(*) AS calls, sum(input_tokens + output_tokens) AS tokens, sum(cost_usd) AS cost_usd
           FROM ai_logs WHERE run_id = ANY($1) GROUP BY run_id`,
      [runIds],
    )) as AiRow[];
  }

  /**
   * Deletes up to `batch` logs older than `days` days, oldest first; answers
   * how many. Oldest first keeps every day but the oldest whole (logCount).
   */
  async deleteOldLogs(em: EntityManager, days: number, batch: number): Promise<number> {
    const [, affected] = (await em.query(
      `DELETE FROM ai_logs WHERE id IN (SELECT id FROM ai_logs WHERE created_at < now() - make_interval(days => $1)
         ORDER BY created_at LIMIT ${batch})`,
      [days],
    )) as [unknown, number];
    return affected;
  }

  /** Deletes up to `batch` workflow runs started more than `days` days ago; answers how many. */
  async deleteOldRuns(em: EntityManager, days: number, batch: number): Promise<number> {
    const [, affected] = (await em.query(
      `DELETE FROM ai_workflow_runs WHERE id IN (SELECT id FROM ai_workflow_runs WHERE started_at < now() - make_interval(days => $1) LIMIT ${batch})`,
      [days],
    )) as [unknown, number];
    return affected;
  }

  /** Serialises version numbering of the prompt per key (no row to lock), and answers the next version. */
  async nextPromptVersion(em: EntityManager, key: string): Promise<number> {
    await em.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ai_prompt:${key}`]);
    const [{ next }] = (await em.query(
      'SELECT coalesce(max(version), 0) + 1 AS next FROM ai_prompt_versions WHERE prompt_key = $1',
      [key],
    )) as { next: number }[];
    return next;
  }
}
