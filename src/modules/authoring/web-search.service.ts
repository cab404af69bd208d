import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { PreparedQueries } from '../../database/prepared-queries';
import { TransactionRunner } from '../../database/transaction-runner';
import { AiGatewayService } from '../ai/ai-gateway.service';
import { activeGrantSql, GrantScope } from '../tool-providers/tool-grants.service';
import {
  boundWebSearchSql,
  BoundWebSearchRow,
  ReadyWebSearch,
  WebSearchCapabilityService,
} from '../tool-providers/web-search-capability.service';
import { AuthoringTasksService } from './authoring-tasks.service';
import {
  DelegatedTaskForbidden,
  SearchInProgress,
  UnsafeQuery,
  WebSearchOutputRefused,
  WebSearchQuotaExhausted,
} from './authoring.errors';
import { toEvidenceResponse } from './authoring.mapper';
import { ConsentsService } from './consents.service';
import type {
  ConsentRequiredResponse,
  EvidenceListResponse,
  ReplayDto,
  WebSearchDto,
  WebSearchResponse,
} from './dto/authoring.dto';
import { AuthoringTask } from './entities/authoring-task.entity';
import { WebSearchEvidence } from './entities/web-search-evidence.entity';
import {
  checkToolOutput,
  MAX_CALLS_PER_TASK,
  MAX_RESULTS_PER_CALL,
  sanitiseQuery,
  WEB_SEARCH_FEATURE,
  WebSearchResult,
} from './web-search-rules';

/** The task, the space's web_search binding (see boundWebSearchSql), the grant for the scope, and reusable evidence. */
interface SearchContextRow extends BoundWebSearchRow {
  delegated: boolean;
  definition_id: string | null;
  root_task_id: string;
  grant_id: string | null;
  calls_used: number;
  evidence_id: string | null;
  evidence_query: string | null;
  evidence_results: WebSearchResult[] | null;
  evidence_tool_name: string | null;
}

/*
 * Everything a search decides on, in one round trip: the task (no row: not
 * in this space), the binding with what its readiness check reads, the
 * active grant for the scope the task and binding make, and the complete
 * evidence of the query when it was searched before. $1 task, $2 space,
 * $3 user, $4 query key (null for an unsafe query, which has none).
 */
const SEARCH_CONTEXT_SQL = `WITH task AS (
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
})})
SELECT task.delegated, task.definition_id, task.root_task_id, bound.*,
  (SELECT id FROM active_grant) AS grant_id,
  (SELECT count(*) FROM web_search_evidence WHERE task_id = task.id AND status = 'complete')::int AS calls_used,
  ev.id AS evidence_id, ev.query AS evidence_query, ev.results AS evidence_results, ev.tool_name AS evidence_tool_name
FROM task
LEFT JOIN bound ON true
LEFT JOIN web_search_evidence ev ON ev.task_id = task.id AND ev.query_key_hash = $4 AND ev.status = 'complete'`;

interface ReserveRow {
  reserved_id: string | null;
  complete_id: string | null;
  slot_taken: number;
  in_flight: number;
}

// A reservation older than this is from a call that never finished (a crash): it no longer holds
// a quota slot. Longer than any tool call may take (TOOL_CALL_TIMEOUT_MS is at most 2 minutes).
const STALE = `interval '5 minutes'`;

/*
 * Reserves a live call in one statement. The conditional UPDATE of the
 * task's slot count is the serialisation point: a concurrent reservation
 * waits for the row and re-checks the limit on its new value. A stale
 * reservation of the same query already holds a slot and is taken over.
 * $1 task, $2 query key, $3 query, $4 max_results, $5 binding, $6 provider,
 * $7 tool name, $8 user, $9 the quota.
 */
const RESERVE_SQL = `WITH existing AS (
  SELECT id, status, created_at > now() - ${STALE} AS fresh
  FROM web_search_evidence WHERE task_id = $1 AND query_key_hash = $2
),
slot AS (
  UPDATE authoring_tasks
  SET web_search_slots = web_search_slots + CASE WHEN EXISTS (SELECT 1 FROM existing) THEN 0 ELSE 1 END
  WHERE id = $1
    AND NOT EXISTS (SELECT 1 FROM existing WHERE status = 'complete' OR fresh)
    AND (web_search_slots < $9 OR EXISTS (SELECT 1 FROM existing))
  RETURNING id
),
retaken AS (
  UPDATE web_search_evidence e
  SET created_at = now(), query = $3, max_results = $4, binding_id = $5, provider_id = $6, tool_name = $7, created_by = $8
  FROM existing x, slot WHERE e.id = x.id
  RETURNING e.id
),
inserted AS (
  INSERT INTO web_search_evidence (task_id, query_key_hash, query, status, max_results, binding_id, provider_id, tool_name, created_by)
  SELECT $1, $2, $3, 'pending', $4, $5, $6, $7, $8 FROM slot WHERE NOT EXISTS (SELECT 1 FROM existing)
  ON CONFLICT (task_id, query_key_hash) DO NOTHING
  RETURNING id
)
SELECT coalesce((SELECT id FROM inserted), (SELECT id FROM retaken)) AS reserved_id,
  (SELECT id FROM existing WHERE status = 'complete') AS complete_id,
  (SELECT count(*) FROM slot)::int AS slot_taken,
  (SELECT count(*) FROM existing WHERE status = 'pending' AND fresh)::int AS in_flight`;

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
 * Stores a call's normalised results on its reservation and answers the
 * task's successful calls: those completed before (the statement's
 * snapshot) plus this one.
 */
const COMPLETE_SQL = `WITH done AS (
  UPDATE web_search_evidence SET status = 'complete', results = $2::jsonb, dropped = $3::jsonb, run_id = $4, completed_at = now()
  WHERE id = $1 AND status = 'pending' RETURNING id
)
SELECT ((SELECT count(*) FROM web_search_evidence WHERE task_id = $5 AND status = 'complete')
  + (SELECT count(*) FROM done))::int AS calls_used`;

export type WebSearchOutcome =
  { kind: 'consent'; body: ConsentRequiredResponse } | { kind: 'results'; body: WebSearchResponse };

/**
 * The pipeline-authoring web-search facade (`pipeline_authoring_web_search`):
 * delegated tasks refused, consent before the first search, evidence reused
 * for repeated queries, at most 6 successful distinct live calls per task
 * and 8 results per call, every call and reuse in the AI log.
 */
@Injectable()
export class WebSearchService {
  constructor(
    @InjectRepository(WebSearchEvidence) private readonly evidence: Repository<WebSearchEvidence>,
    private readonly tasks: AuthoringTasksService,
    private readonly consents: ConsentsService,
    private readonly capability: WebSearchCapabilityService,
    private readonly ai: AiGatewayService,
    private readonly tx: TransactionRunner,
    private readonly prepared: PreparedQueries,
  ) {}

  async search(
    actor: Actor,
    access: SpaceAccess,
    taskId: string,
    dto: WebSearchDto,
  ): Promise<WebSearchOutcome> {
    const sanitised = sanitiseQuery(dto.query);
    const [context] = await this.prepared.query<SearchContextRow>(SEARCH_CONTEXT_SQL, [
      taskId,
      access.space.id,
      actor.userId,
      sanitised.ok ? sanitised.value.keyHash : null,
    ]);
    if (!context) throw new NotFound('authoring task', taskId);
    if (context.delegated) throw new DelegatedTaskForbidden();
    if (!sanitised.ok) throw new UnsafeQuery(sanitised.reason);
    const { query, keyHash } = sanitised.value;
    const maxResults = dto.max_results ?? MAX_RESULTS_PER_CALL;

    const ready = await this.capability.requireReadyFrom(context);
    const task = { id: taskId, definitionId: context.definition_id, rootTaskId: context.root_task_id };
    if (!context.grant_id) {
      const scope: GrantScope = {
        userId: actor.userId,
        spaceId: access.space.id,
        definitionId: task.definitionId,
        rootTaskId: task.rootTaskId,
        bindingId: ready.bindingId,
        providerId: ready.providerId,
      };
      const consent = await this.tx.run(async (em) => {
        await this.lockTask(em, task.id);
        return this.consents.findOrAsk(em, scope, task.id);
      });
      return { kind: 'consent', body: { consent } };
    }

    if (context.evidence_id) {
      const stored = {
        id: context.evidence_id,
        taskId,
        query: context.evidence_query!,
        results: context.evidence_results!,
        toolName: context.evidence_tool_name!,
      };
      return {
        kind: 'results',
        body: await this.reuse(actor, access, stored, context.calls_used, maxResults, 'reuse'),
      };
    }
    const reservation = await this.reserve(task.id, keyHash, query, maxResults, ready, actor.userId);
    if ('reuse' in reservation) {
      const callsUsed = await this.tasks.callsUsed(task.id);
      return {
        kind: 'results',
        body: await this.reuse(actor, access, reservation.reuse, callsUsed, maxResults, 'reuse'),
      };
    }
    return {
      kind: 'results',
      body: await this.live(actor, access, task.id, reservation.id, query, maxResults, ready),
    };
  }

  async listEvidence(access: SpaceAccess, taskId: string): Promise<EvidenceListResponse> {
    const task = await this.tasks.require(access.space.id, taskId);
    const [rows, total] = await this.evidence.findAndCount({
      where: { taskId: task.id, status: 'complete' },
      order: { createdAt: 'ASC' },
    });
    return { items: rows.map(toEvidenceResponse), total };
  }

  /** The stored results of an earlier search, from the evidence alone: no provider, no capability check, no quota. */
  async replay(
    actor: Actor,
    access: SpaceAccess,
    taskId: string,
    dto: ReplayDto,
  ): Promise<WebSearchResponse> {
    if ((dto.evidence_id === undefined) === (dto.query === undefined)) {
      throw ValidationFailed.field('evidence_id', 'Give exactly one of `evidence_id` or `query`.');
    }
    const task = await this.tasks.require(access.space.id, taskId);
    let stored: WebSearchEvidence | null;
    if (dto.evidence_id !== undefined) {
      stored = await this.evidence.findOneBy({ id: dto.evidence_id, taskId: task.id, status: 'complete' });
    } else {
      const sanitised = sanitiseQuery(dto.query ?? '');
      // An unsafe query was never searched, so it has no evidence either.
      stored = sanitised.ok
        ? await this.evidence.findOneBy({
            taskId: task.id,
            queryKeyHash: sanitised.value.keyHash,
            status: 'complete',
          })
        : null;
    }
    if (!stored) throw new NotFound('web-search evidence', dto.evidence_id);
    const callsUsed = await this.tasks.callsUsed(task.id);
    return this.reuse(actor, access, stored, callsUsed, MAX_RESULTS_PER_CALL, 'replay');
  }

  private async lockTask(em: EntityManager, taskId: string): Promise<void> {
    await em
      .getRepository(AuthoringTask)
      .findOne({ where: { id: taskId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * One statement: the complete evidence of the query to reuse, or a
   * `pending` evidence row holding one of the task's quota slots for the
   * live call. A stale reservation (a call that never finished) is freed
   * once the quota looks used up, then the reservation is tried again.
   */
  private async reserve(
    taskId: string,
    keyHash: string,
    query: string,
    maxResults: number,
    ready: ReadyWebSearch,
    userId: string,
  ): Promise<{ reuse: WebSearchEvidence } | { id: string }> {
    for (let attempt = 1; ; attempt++) {
      const [row] = await this.prepared.query<ReserveRow>(RESERVE_SQL, [
        taskId,
        keyHash,
        query,
        maxResults,
        ready.bindingId,
        ready.providerId,
        ready.namespacedName,
        userId,
        MAX_CALLS_PER_TASK,
      ]);
      if (row.complete_id) {
        return { reuse: await this.evidence.findOneByOrFail({ id: row.complete_id }) };
      }
      if (row.reserved_id) return { id: row.reserved_id };
      if (row.slot_taken) {
        // A concurrent search of the same query inserted first: give the slot back.
        await this.prepared.query(GIVE_BACK_SQL, [taskId]);
        throw new SearchInProgress();
      }
      if (row.in_flight) throw new SearchInProgress();
      const [freed] = await this.prepared.query<{ freed: number }>(FREE_STALE_SQL, [taskId]);
      if (attempt > 1 || !freed || freed.freed === 0) throw new WebSearchQuotaExhausted();
    }
  }

  private async live(
    actor: Actor,
    access: SpaceAccess,
    taskId: string,
    reservationId: string,
    query: string,
    maxResults: number,
    ready: ReadyWebSearch,
  ): Promise<WebSearchResponse> {
    // The call's own workflow run, written with its log entry in one statement.
    const runId = randomUUID();
    const startedAt = new Date();
    const started = performance.now();
    const log = (status: 'success' | 'error', output: string | null, error: string | null, detail: object) =>
      this.ai.recordToolCall({
        feature: WEB_SEARCH_FEATURE,
        runId,
        ownRun: true,
        userId: actor.userId,
        spaceId: access.space.id,
        tool: ready.namespacedName,
        status,
        startedAt,
        latencyMs: performance.now() - started,
        input: query,
        output,
        error,
        detail: { task_id: taskId, max_results: maxResults, reused: false, ...detail },
      });
    let output: unknown;
    try {
      output = await this.capability.call(ready, { query, max_results: maxResults });
    } catch (error) {
      await Promise.all([
        this.release(reservationId),
        log('error', null, error instanceof Error ? error.message : 'The web-search tool failed.', {}),
      ]);
      throw error;
    }
    const check = checkToolOutput(output, maxResults);
    if (!check.ok) {
      await Promise.all([this.release(reservationId), log('error', null, check.reason, {})]);
      throw new WebSearchOutputRefused(check.reason);
    }
    // The evidence and the log entry are independent writes: in parallel, one round trip of waiting.
    const [[done]] = await Promise.all([
      this.prepared.query<{ calls_used: number }>(COMPLETE_SQL, [
        reservationId,
        JSON.stringify(check.results),
        JSON.stringify(check.dropped),
        runId,
        taskId,
      ]),
      log('success', `${check.results.length} results stored as evidence ${reservationId}`, null, {
        evidence_id: reservationId,
        result_count: check.results.length,
        dropped: check.dropped,
        redactions: check.redactions,
      }),
    ]);
    return {
      results: check.results,
      evidence_id: reservationId,
      reused: false,
      calls_used: done.calls_used,
      calls_remaining: Math.max(0, MAX_CALLS_PER_TASK - done.calls_used),
    };
  }

  /** Gives a failed call's quota slot back (only while it is still a reservation). */
  private async release(reservationId: string): Promise<void> {
    await this.prepared.query(RELEASE_SQL, [reservationId]);
  }

  /** Answers stored evidence (a repeated query, or a replay) and logs it under a run of its own. */
  private async reuse(
    actor: Actor,
    access: SpaceAccess,
    stored: Pick<WebSearchEvidence, 'id' | 'taskId' | 'query' | 'results' | 'toolName'>,
    callsUsed: number,
    maxResults: number,
    how: 'reuse' | 'replay',
  ): Promise<WebSearchResponse> {
    const results = stored.results.slice(0, maxResults);
    await this.ai.recordToolCall({
      feature: WEB_SEARCH_FEATURE,
      runId: randomUUID(),
      ownRun: true,
      userId: actor.userId,
      spaceId: access.space.id,
      tool: stored.toolName,
      status: 'success',
      startedAt: new Date(),
      latencyMs: 0,
      input: stored.query,
      output: `${results.length} results ${how === 'replay' ? 'replayed' : 'reused'} from evidence ${stored.id}`,
      error: null,
      detail: { task_id: stored.taskId, evidence_id: stored.id, reused: true, replay: how === 'replay' },
    });
    return {
      results,
      evidence_id: stored.id,
      reused: true,
      calls_used: callsUsed,
      calls_remaining: Math.max(0, MAX_CALLS_PER_TASK - callsUsed),
    };
  }
}
