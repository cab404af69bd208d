import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RunState } from './run-event';
import type { RunDatasetDirection } from './entities/lineage-run-dataset.entity';

/** A run with its job, as the reads answer it. */
export interface RunRow {
  id: string;
  run_id: string;
  state: RunState;
  started_at: Date | null;
  ended_at: Date | null;
  duration_ms: string | number | null;
  error_message: string | null;
  parent_run_id: string | null;
  parent_job_namespace: string | null;
  parent_job_name: string | null;
  first_event_time: Date;
  last_event_time: Date;
  job_id: string;
  job_namespace: string;
  job_name: string;
}

/** A run as run health folds it (the columns its events set). */
export interface RunRecord {
  id: string;
  jobId: string;
  runId: string;
  state: RunState;
  stateEventTime: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  durationMs: number | null;
  errorMessage: string | null;
  parentRunId: string | null;
  parentJobNamespace: string | null;
  parentJobName: string | null;
  firstEventTime: Date;
  lastEventTime: Date;
}

interface RunRecordRow {
  id: string;
  job_id: string;
  run_id: string;
  state: RunState;
  state_event_time: Date;
  started_at: Date | null;
  ended_at: Date | null;
  duration_ms: string | number | null;
  error_message: string | null;
  parent_run_id: string | null;
  parent_job_namespace: string | null;
  parent_job_name: string | null;
  first_event_time: Date;
  last_event_time: Date;
}

const date = (value: Date | string): Date => new Date(value);

function toRunRecord(row: RunRecordRow): RunRecord {
  return {
    id: row.id,
    jobId: row.job_id,
    runId: row.run_id,
    state: row.state,
    stateEventTime: date(row.state_event_time),
    startedAt: row.started_at === null ? null : date(row.started_at),
    endedAt: row.ended_at === null ? null : date(row.ended_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    errorMessage: row.error_message,
    parentRunId: row.parent_run_id,
    parentJobNamespace: row.parent_job_namespace,
    parentJobName: row.parent_job_name,
    firstEventTime: date(row.first_event_time),
    lastEventTime: date(row.last_event_time),
  };
}

export interface JobRow {
  id: string;
  namespace: string;
  name: string;
  last_event_time: Date | null;
  created_at: Date;
  /** The latest run's columns, null when the job has none. */
  run_id: string | null;
  run_run_id: string | null;
  run_state: RunState | null;
  run_started_at: Date | null;
  run_ended_at: Date | null;
  run_duration_ms: string | number | null;
  run_error_message: string | null;
}

export interface RunDatasetRow {
  lineage_run_id: string;
  direction: RunDatasetDirection;
  product_id: string;
}

export interface OpenRunAlertRow {
  lineage_run_id: string;
  product_id: string;
  alert_id: string;
}

const RUN_COLUMNS = `r.id, r.run_id, r.state, r.started_at, r.ended_at, r.duration_ms, r.error_message,
  r.parent_run_id, r.parent_job_namespace, r.parent_job_name, r.first_event_time, r.last_event_time,
  j.id AS job_id, j.namespace AS job_namespace, j.name AS job_name`;

/**
 * Run health's raw SQL: upserts and once-only inserts (INSERT … ON CONFLICT)
 * that the repository API cannot say race-free in one statement; an event's
 * writes (the run, its products, the job's latest run guarded by its own
 * WHERE) in one round trip with data-modifying WITHs, as ingestion applies
 * hundreds of events a second; and the paged reads with their joins. Indexes: lineage_jobs_space_name_key (space_id, namespace, name) for
 * the job upsert and the jobs page (with lineage_run_alerts_job_open_idx for
 * its open-alerts flag); the lineage_jobs and lineage_runs primary
 * keys for single rows and the latest-run join, lineage_runs_space_run_key
 * (space_id, run_id) for a run's lock; lineage_runs_job_time_idx
 * (job_id, first_event_time, id) for a job's runs;
 * lineage_runs_job_completed_idx (job_id, ended_at) WHERE state = 'COMPLETE'
 * for "did the job complete after this failure"; the lineage_run_datasets
 * primary key (lineage_run_id, direction, product_id) for a run's products
 * and lineage_run_datasets_product_idx (product_id, lineage_run_id) for a
 * product's runs; the lineage_run_alerts primary key (lineage_run_id,
 * product_id) for a run's alerts and lineage_run_alerts_job_open_idx (job_id,
 * failed_at) WHERE resolved_at IS NULL for a job's open alerts.
 */
@Injectable()
export class LineageRunsQueries {
  // Writes, inside the ingestion's transaction.

  /**
   * The job, created when new, and whether it has alerts no later run resolved yet. Touching the row locks
   * it: events of one job apply one after the other.
   */
  async upsertJob(
    em: EntityManager,
    spaceId: string,
    namespace: string,
    name: string,
  ): Promise<{ id: string; has_open_alerts: boolean }> {
    const [row] = (await em.query(
      `INSERT INTO lineage_jobs (space_id, namespace, name) VALUES ($1, $2, $3)
         ON CONFLICT (space_id, namespace, name) DO UPDATE SET updated_at = now()
       RETURNING id, EXISTS (SELECT 1 FROM lineage_run_alerts a
                              WHERE a.job_id = lineage_jobs.id AND a.resolved_at IS NULL) AS has_open_alerts`,
      [spaceId, namespace, name],
    )) as { id: string; has_open_alerts: boolean }[];
    return row;
  }

  /**
   * `upsertJob` for a batch's jobs in one statement (rows by space, namespace and name); the keys must be
   * distinct. Locks the rows in key order, as one processor applies batches one at a time.
   */
  async upsertJobs(
    em: EntityManager,
    keys: { spaceId: string; namespace: string; name: string }[],
  ): Promise<{ id: string; space_id: string; namespace: string; name: string; has_open_alerts: boolean }[]> {
    return (await em.query(
      `INSERT INTO lineage_jobs (space_id, namespace, name)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]) ORDER BY 1, 2, 3
         ON CONFLICT (space_id, namespace, name) DO UPDATE SET updated_at = now()
       RETURNING id, space_id, namespace, name,
                 EXISTS (SELECT 1 FROM lineage_run_alerts a
                          WHERE a.job_id = lineage_jobs.id AND a.resolved_at IS NULL) AS has_open_alerts`,
      [keys.map((k) => k.spaceId), keys.map((k) => k.namespace), keys.map((k) => k.name)],
    )) as { id: string; space_id: string; namespace: string; name: string; has_open_alerts: boolean }[];
  }

  /** `lockRun` for a batch's runs in one statement (lineage_runs_space_run_key), keyed `spaceId runId`. */
  async lockRuns(
    em: EntityManager,
    keys: { spaceId: string; runId: string }[],
  ): Promise<Map<string, RunRecord>> {
    const rows = (await em.query(
      `SELECT r.id, r.space_id, r.job_id, r.run_id, r.state, r.state_event_time, r.started_at, r.ended_at,
              r.duration_ms, r.error_message, r.parent_run_id, r.parent_job_namespace, r.parent_job_name,
              r.first_event_time, r.last_event_time
         FROM lineage_runs r
         JOIN unnest($1::uuid[], $2::uuid[]) AS k(space_id, run_id)
           ON r.space_id = k.space_id AND r.run_id = k.run_id
        ORDER BY r.id
          FOR UPDATE OF r`,
      [keys.map((k) => k.spaceId), keys.map((k) => k.runId)],
    )) as (RunRecordRow & { space_id: string })[];
    return new Map(rows.map((row) => [`${row.space_id} ${row.run_id}`, toRunRecord(row)]));
  }

  /** The run of that runId in the space, locked until the transaction ends; null when new. */
  async lockRun(em: EntityManager, spaceId: string, runId: string): Promise<RunRecord | null> {
    const [row] = (await em.query(
      `SELECT id, job_id, run_id, state, state_event_time, started_at, ended_at, duration_ms, error_message,
              parent_run_id, parent_job_namespace, parent_job_name, first_event_time, last_event_time
         FROM lineage_runs WHERE space_id = $1 AND run_id = $2
          FOR UPDATE`,
      [spaceId, runId],
    )) as RunRecordRow[];
    return row ? toRunRecord(row) : null;
  }

  /**
   * In one statement: the run inserted (when new) or updated, the products it read and wrote recorded
   * (once each), and the run made its job's latest unless a run with a later last event (or the same, and a
   * larger id) is.
   */
  async writeRun(
    em: EntityManager,
    spaceId: string,
    run: RunRecord,
    isNew: boolean,
    inputIds: string[],
    outputIds: string[],
  ): Promise<void> {
    const write = isNew
      ? `INSERT INTO lineage_runs (id, space_id, job_id, run_id, state, state_event_time, started_at, ended_at,
           duration_ms, error_message, parent_run_id, parent_job_namespace, parent_job_name, first_event_time,
           last_event_time)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`
      : `UPDATE lineage_runs SET state = $5, state_event_time = $6, started_at = $7, ended_at = $8, duration_ms = $9,
           error_message = $10, parent_run_id = $11, parent_job_namespace = $12, parent_job_name = $13,
           first_event_time = $14, last_event_time = $15, updated_at = now()
         WHERE id = $1 AND space_id = $2 AND job_id = $3 AND run_id = $4 RETURNING id`;
    await em.query(
      `WITH run AS (${write}),
       datasets AS (
         INSERT INTO lineage_run_datasets (lineage_run_id, direction, product_id)
         SELECT run.id, 'input', p FROM run, unnest($16::uuid[]) AS p
         UNION ALL SELECT run.id, 'output', p FROM run, unnest($17::uuid[]) AS p
         ON CONFLICT DO NOTHING
       )
       UPDATE lineage_jobs SET last_run_id = $1, last_event_time = $15
        WHERE id = $3
          AND (last_event_time IS NULL OR last_event_time < $15
               OR (last_event_time = $15 AND last_run_id <= $1))`,
      [
        run.id,
        spaceId,
        run.jobId,
        run.runId,
        run.state,
        run.stateEventTime,
        run.startedAt,
        run.endedAt,
        run.durationMs,
        run.errorMessage,
        run.parentRunId,
        run.parentJobNamespace,
        run.parentJobName,
        run.firstEventTime,
        run.lastEventTime,
        inputIds,
        outputIds,
      ],
    );
  }

  /** The products any event of the run named as outputs. */
  async outputsOf(em: EntityManager, runPk: string): Promise<string[]> {
    const rows = (await em.query(
      `SELECT product_id FROM lineage_run_datasets WHERE lineage_run_id = $1 AND direction = 'output'
        ORDER BY product_id`,
      [runPk],
    )) as { product_id: string }[];
    return rows.map((r) => r.product_id);
  }

  /** Whether a run of the job completed after the given time (a failure before it is already behind the job). */
  async completedAfter(em: EntityManager, jobId: string, time: Date): Promise<boolean> {
    const rows = (await em.query(
      `SELECT 1 FROM lineage_runs WHERE job_id = $1 AND state = 'COMPLETE' AND ended_at > $2 LIMIT 1`,
      [jobId, time],
    )) as unknown[];
    return rows.length > 0;
  }

  /** The products the run has already raised an alert on. */
  async alertedProducts(em: EntityManager, runPk: string): Promise<string[]> {
    const rows = (await em.query(`SELECT product_id FROM lineage_run_alerts WHERE lineage_run_id = $1`, [
      runPk,
    ])) as { product_id: string }[];
    return rows.map((r) => r.product_id);
  }

  async addRunAlert(
    em: EntityManager,
    row: { runPk: string; productId: string; jobId: string; alertId: string; failedAt: Date },
  ): Promise<void> {
    await em.query(
      `INSERT INTO lineage_run_alerts (lineage_run_id, product_id, job_id, alert_id, failed_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [row.runPk, row.productId, row.jobId, row.alertId, row.failedAt],
    );
  }

  /** The job's alerts not yet resolved by a later run, raised by failures before `before`, locked. */
  async openRunAlerts(em: EntityManager, jobId: string, before: Date): Promise<OpenRunAlertRow[]> {
    return (await em.query(
      `SELECT lineage_run_id, product_id, alert_id FROM lineage_run_alerts
        WHERE job_id = $1 AND resolved_at IS NULL AND failed_at < $2
        ORDER BY lineage_run_id, product_id
        FOR UPDATE`,
      [jobId, before],
    )) as OpenRunAlertRow[];
  }

  async markRunAlertsResolved(em: EntityManager, jobId: string, rows: OpenRunAlertRow[]): Promise<void> {
    if (!rows.length) return;
    await em.query(
      `UPDATE lineage_run_alerts a SET resolved_at = now()
         FROM unnest($2::uuid[], $3::uuid[]) AS k(lineage_run_id, product_id)
        WHERE a.job_id = $1 AND a.lineage_run_id = k.lineage_run_id AND a.product_id = k.product_id`,
      [jobId, rows.map((r) => r.lineage_run_id), rows.map((r) => r.product_id)],
    );
  }

  // Reads.

  async jobsPage(em: EntityManager, spaceId: string, skip: number, limit: number): Promise<JobRow[]> {
    return (await em.query(
      `SELECT j.id, j.namespace, j.name, j.last_event_time, j.created_at,
              r.id AS run_id, r.run_id AS run_run_id, r.state AS run_state, r.started_at AS run_started_at,
              r.ended_at AS run_ended_at, r.duration_ms AS run_duration_ms, r.error_message AS run_error_message
         FROM lineage_jobs j LEFT JOIN lineage_runs r ON r.id = j.last_run_id
        WHERE j.space_id = $1
        ORDER BY j.namespace, j.name
        OFFSET $2 LIMIT $3`,
      [spaceId, skip, limit],
    )) as JobRow[];
  }

  async jobCount(em: EntityManager, spaceId: string): Promise<number> {
    const [row] = (await em.query(`SELECT count(*)::int AS total FROM lineage_jobs WHERE space_id = $1`, [
      spaceId,
    ])) as { total: number }[];
    return Number(row.total);
  }

  async jobExists(em: EntityManager, spaceId: string, jobId: string): Promise<boolean> {
    const rows = (await em.query(`SELECT 1 FROM lineage_jobs WHERE id = $1 AND space_id = $2`, [
      jobId,
      spaceId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** The job's runs, the most recently begun first. */
  async runsOfJob(em: EntityManager, jobId: string, skip: number, limit: number): Promise<RunRow[]> {
    return (await em.query(
      `SELECT ${RUN_COLUMNS}
         FROM lineage_runs r JOIN lineage_jobs j ON j.id = r.job_id
        WHERE r.job_id = $1
        ORDER BY r.first_event_time DESC, r.id DESC
        OFFSET $2 LIMIT $3`,
      [jobId, skip, limit],
    )) as RunRow[];
  }

  async runCountOfJob(em: EntityManager, jobId: string): Promise<number> {
    const [row] = (await em.query(`SELECT count(*)::int AS total FROM lineage_runs WHERE job_id = $1`, [
      jobId,
    ])) as { total: number }[];
    return Number(row.total);
  }

  /** The runs that read or wrote the product, the most recently begun first. */
  async runsOfProduct(em: EntityManager, productId: string, skip: number, limit: number): Promise<RunRow[]> {
    return (await em.query(
      `SELECT ${RUN_COLUMNS}
         FROM lineage_runs r JOIN lineage_jobs j ON j.id = r.job_id
        WHERE r.id IN (SELECT lineage_run_id FROM lineage_run_datasets WHERE product_id = $1)
        ORDER BY r.first_event_time DESC, r.id DESC
        OFFSET $2 LIMIT $3`,
      [productId, skip, limit],
    )) as RunRow[];
  }

  async runCountOfProduct(em: EntityManager, productId: string): Promise<number> {
    const [row] = (await em.query(
      `SELECT count(DISTINCT lineage_run_id)::int AS total FROM lineage_run_datasets WHERE product_id = $1`,
      [productId],
    )) as { total: number }[];
    return Number(row.total);
  }

  /** The products of the given runs. */
  async datasetsOf(em: EntityManager, runPks: string[]): Promise<RunDatasetRow[]> {
    if (!runPks.length) return [];
    return (await em.query(
      `SELECT lineage_run_id, direction, product_id FROM lineage_run_datasets
        WHERE lineage_run_id = ANY($1::uuid[]) ORDER BY lineage_run_id, direction, product_id`,
      [runPks],
    )) as RunDatasetRow[];
  }
}
