import { Injectable } from '@nestjs/common';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import {
  activeGrantSql,
  boundWebSearchSql,
  BoundWebSearchRow,
} from '../tool-providers/tool-providers.contract';
import type { WebSearchResult } from './web-research-rules';

/*
 * The web-research facade's statements: the quota slots and evidence of a
 * task's searches. A search costs three round trips when it calls
 * the tool: SEARCH_SQL (read everything, reserve), the call, then
 * COMPLETE_SQL beside the AI log write.
 */

/*
 * The reservation commits without waiting for its WAL flush (for this
 * transaction only): its durability comes from the completion, which
 * commits synchronously and so flushes the WAL up to and including it
 * before any result is answered. A database crash in between loses the
 * reservation and its quota slot together, and the completion, finding no
 * reservation, refuses to answer results it could not store.
 */
const ASYNC_COMMIT = `async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)`;

// A reservation older than this is from a call that never finished (a crash): it no longer holds
// a quota slot. Longer than any tool call may take (TOOL_CALL_TIMEOUT_MS is at most 2 minutes).
const STALE = `interval '5 minutes'`;

/** SQL expressions for what a reservation is made with. */
interface ReservationSql {
  task: string;
  keyHash: string;
  query: string;
  maxResults: string;
  binding: string;
  provider: string;
  toolName: string;
  user: string;
  quota: string;
  /** A condition without which nothing is reserved. */
  gate: string;
}

/** What a reservation answers: the complete evidence to reuse, a reservation, or why neither. */
export interface ReservationRow {
  reserved_id: string | null;
  complete_id: string | null;
  complete_query: string | null;
  complete_results: WebSearchResult[] | null;
  complete_tool_name: string | null;
  /** The task's successful calls (complete evidence) before this statement. */
  calls_used: number;
  slot_taken: number;
  in_flight: number;
}

/*
 * Reserves a live call: the complete evidence of the query to reuse, or a
 * `pending` evidence row holding one of the task's quota slots. The
 * conditional UPDATE of the task's slot count is the serialisation point: a
 * concurrent reservation waits for the row and re-checks the limit on its
 * new value. A stale reservation of the same query already holds a slot and
 * is taken over. Answers the columns of ReservationRow.
 */
function reservationSql(p: ReservationSql): { ctes: string; columns: string } {
  const ctes = `existing AS (
  SELECT id, status, created_at > now() - ${STALE} AS fresh, query, results, tool_name
  FROM web_search_evidence WHERE task_id = ${p.task} AND query_key_hash = ${p.keyHash}
),
slot AS (
  UPDATE authoring_tasks
  SET web_search_slots = web_search_slots + CASE WHEN EXISTS (SELECT 1 FROM existing) THEN 0 ELSE 1 END
  WHERE id = ${p.task} AND ${p.gate}
    AND NOT EXISTS (SELECT 1 FROM existing WHERE status = 'complete' OR fresh)
    AND (web_search_slots < ${p.quota} OR EXISTS (SELECT 1 FROM existing))
  RETURNING id
),
retaken AS (
  UPDATE web_search_evidence e
  SET created_at = now(), query = ${p.query}, max_results = ${p.maxResults}, binding_id = ${p.binding},
    provider_id = ${p.provider}, tool_name = ${p.toolName}, created_by = ${p.user}
  FROM existing x, slot WHERE e.id = x.id
  RETURNING e.id
),
inserted AS (
  INSERT INTO web_search_evidence (task_id, query_key_hash, query, status, max_results, binding_id, provider_id, tool_name, created_by)
  SELECT ${p.task}, ${p.keyHash}, ${p.query}, 'pending', ${p.maxResults}, ${p.binding}, ${p.provider}, ${p.toolName}, ${p.user}
  FROM slot WHERE NOT EXISTS (SELECT 1 FROM existing)
  ON CONFLICT (task_id, query_key_hash) DO NOTHING
  RETURNING id
)`;
  const columns = `coalesce((SELECT id FROM inserted), (SELECT id FROM retaken)) AS reserved_id,
  c.id AS complete_id, c.query AS complete_query, c.results AS complete_results, c.tool_name AS complete_tool_name,
  (SELECT count(*) FROM web_search_evidence WHERE task_id = ${p.task} AND status = 'complete')::int AS calls_used,
  (SELECT count(*) FROM slot)::int AS slot_taken,
  (SELECT count(*) FROM existing WHERE status = 'pending' AND fresh)::int AS in_flight`;
  return { ctes, columns };
}

/** The task, the space's web_search binding (see boundWebSearchSql), the grant for the scope, and the reservation. */
export interface SearchRow extends BoundWebSearchRow, ReservationRow {
  delegated: boolean;
  definition_id: string | null;
  root_task_id: string;
  grant_id: string | null;
}

const searchReservation = reservationSql({
  task: '$1::uuid',
  keyHash: '$4::text',
  query: '$5::text',
  maxResults: '$6::smallint',
  binding: '(SELECT binding_id FROM bound)',
  provider: '(SELECT provider_id FROM bound)',
  // The namespaced name, `{slug}.{tool_name}`, as namespacedName builds it.
  toolName: "(SELECT provider_slug || '.' || tool_name FROM bound)",
  user: '$3::uuid',
  quota: '$7::int',
  // Only for a safe query of an undelegated task with a grant: nothing else may use a quota slot.
  gate: '$4::text IS NOT NULL AND EXISTS (SELECT 1 FROM task, active_grant WHERE NOT task.delegated)',
});

/*
 * Everything a search decides on, and its reservation, in one round trip:
 * the task (no row: not in this space), the binding with what its
 * readiness check reads, the active grant for the scope the task and
 * binding make, and the reservation (made only with a grant). The caller
 * still checks readiness, and releases a reservation the check refuses.
 * $1 task, $2 space, $3 user, $4 query key and $5 query (null for an unsafe
 * query), $6 max_results, $7 the quota.
 */
const SEARCH_SQL = `WITH ${ASYNC_COMMIT},
task AS (
  SELECT id, delegated, definition_id, root_task_id FROM authoring_tasks WHERE id = $1::uuid AND space_id = $2::uuid
),
bound AS (${boundWebSearchSql('$2::uuid')}),
active_grant AS (${activeGrantSql({
  userId: '$3::uuid',
  spaceId: '$2::uuid',
  definitionId: '(SELECT definition_id FROM task)',
  rootTaskId: '(SELECT root_task_id FROM task)',
  bindingId: '(SELECT binding_id FROM bound)',
  providerId: '(SELECT provider_id FROM bound)',
})}),
${searchReservation.ctes}
SELECT task.delegated, task.definition_id, task.root_task_id, bound.*, (SELECT id FROM active_grant) AS grant_id,
  ${searchReservation.columns},
  (SELECT setting FROM async_commit) AS commit_mode
FROM task
LEFT JOIN bound ON true
LEFT JOIN existing c ON c.status = 'complete'`;

const retryReservation = reservationSql({
  task: '$1::uuid',
  keyHash: '$2::text',
  query: '$3::text',
  maxResults: '$4::smallint',
  binding: '$5::uuid',
  provider: '$6::uuid',
  toolName: '$7::text',
  user: '$8::uuid',
  quota: '$9::int',
  gate: 'true',
});

/**
 * The reservation again, after stale reservations were freed. $1 task, $2
 * query key, $3 query, $4 max_results, $5 binding, $6 provider, $7 tool
 * name, $8 user, $9 the quota.
 */
const RESERVE_SQL = `WITH ${retryReservation.ctes}
SELECT ${retryReservation.columns}
FROM (SELECT 1) one
LEFT JOIN existing c ON c.status = 'complete'`;

const GIVE_BACK_SQL = `UPDATE authoring_tasks SET web_search_slots = web_search_slots - 1 WHERE id = $1`;

/** Frees the slots of the task's stale reservations; answers how many. */
const FREE_STALE_SQL = `WITH stale AS (
  DELETE FROM web_search_evidence WHERE task_id = $1 AND status = 'pending' AND created_at <= now() - ${STALE} RETURNING id
)
UPDATE authoring_tasks SET web_search_slots = web_search_slots - (SELECT count(*) FROM stale) WHERE id = $1
RETURNING (SELECT count(*) FROM stale)::int AS freed`;

/** Removes a failed call's reservation and gives its slot back. */
const RELEASE_SQL = `WITH gone AS (
  DELETE FROM web_search_evidence WHERE id = $1 AND status = 'pending' RETURNING task_id
)
UPDATE authoring_tasks SET web_search_slots = web_search_slots - 1 WHERE id IN (SELECT task_id FROM gone)`;

/**
 * Stores a call's normalised results on its reservation (committing
 * synchronously) and answers whether it did, and the task's successful
 * calls: those completed before (the statement's snapshot) plus this one.
 */
const COMPLETE_SQL = `WITH done AS (
  UPDATE web_search_evidence SET status = 'complete', results = $2::jsonb, dropped = $3::jsonb, run_id = $4, completed_at = now()
  WHERE id = $1 AND status = 'pending' RETURNING id
)
SELECT (SELECT count(*) FROM done)::int AS completed,
  ((SELECT count(*) FROM web_search_evidence WHERE task_id = $5 AND status = 'complete')
  + (SELECT count(*) FROM done))::int AS calls_used`;

/** What a search of a task asks for; `keyHash` and `query` are null for an unsafe query. */
export interface SearchParams {
  taskId: string;
  spaceId: string;
  userId: string;
  keyHash: string | null;
  query: string | null;
  maxResults: number;
  quota: number;
}

/** What a retried reservation is made with. */
export interface ReserveParams {
  taskId: string;
  keyHash: string;
  query: string;
  maxResults: number;
  bindingId: string;
  providerId: string;
  toolName: string;
  userId: string;
  quota: number;
}

/**
 * The web-research facade's statements (above), as one class. Raw SQL because
 * a search reads the task, binding, grant and evidence and makes its
 * reservation in one round trip, with a conditional UPDATE of the task's
 * slot count as the serialisation point and asynchronous commit for the
 * reservation only; the repository API can do none of that. Indexes:
 * web_search_evidence's unique (task_id, query_key_hash) for the existing
 * evidence and the insert, its task index for the completed count and stale
 * reservations, the authoring_tasks primary key for the slot count, and
 * those of the tool-providers contract's fragments (binding, grant).
 *
 * Like SearchQueries, these take no `em`: they never join a transaction and
 * run on the pool as named prepared statements (PreparedQueries, their
 * executor), the facade's hot path.
 */
@Injectable()
export class ResearchEvidenceQueries {
  constructor(private readonly prepared: PreparedQueries) {}

  /** Everything a search decides on, and its reservation (SEARCH_SQL); none when the task is not in the space. */
  async search(p: SearchParams): Promise<SearchRow | undefined> {
    const [row] = await this.prepared.queryOutsideTransaction<SearchRow>(SEARCH_SQL, [
      p.taskId,
      p.spaceId,
      p.userId,
      p.keyHash,
      p.query,
      p.maxResults,
      p.quota,
    ]);
    return row;
  }

  /** The reservation again, after stale reservations were freed (RESERVE_SQL). */
  async reserve(p: ReserveParams): Promise<ReservationRow> {
    const [row] = await this.prepared.queryOutsideTransaction<ReservationRow>(RESERVE_SQL, [
      p.taskId,
      p.keyHash,
      p.query,
      p.maxResults,
      p.bindingId,
      p.providerId,
      p.toolName,
      p.userId,
      p.quota,
    ]);
    return row;
  }

  /** Gives back a quota slot taken without a reservation. */
  async giveBack(taskId: string): Promise<void> {
    await this.prepared.queryOutsideTransaction(GIVE_BACK_SQL, [taskId]);
  }

  /** Frees the slots of the task's stale reservations; the row answers how many (none: the task is gone). */
  async freeStale(taskId: string): Promise<{ freed: number } | undefined> {
    const [freed] = await this.prepared.queryOutsideTransaction<{ freed: number }>(FREE_STALE_SQL, [taskId]);
    return freed;
  }

  /** Removes a failed call's reservation and gives its slot back. */
  async release(reservationId: string): Promise<void> {
    await this.prepared.queryOutsideTransaction(RELEASE_SQL, [reservationId]);
  }

  /** Stores the results on the reservation (COMPLETE_SQL). */
  async complete(
    reservationId: string,
    results: unknown,
    dropped: unknown,
    runId: string,
    taskId: string,
  ): Promise<{ completed: number; calls_used: number }[]> {
    return this.prepared.queryOutsideTransaction<{ completed: number; calls_used: number }>(COMPLETE_SQL, [
      reservationId,
      JSON.stringify(results),
      JSON.stringify(dropped),
      runId,
      taskId,
    ]);
  }
}
