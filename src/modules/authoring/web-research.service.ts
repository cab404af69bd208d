import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AiGatewayService } from '../ai/ai-gateway.service';
import { GrantScope } from '../tool-providers/tool-grants.service';
import { WebSearchCallService } from '../tool-providers/web-search-call.service';
import { ReadyWebSearch, WebSearchReadinessService } from '../tool-providers/web-search-readiness.service';
import { AuthoringTasksService } from './authoring-tasks.service';
import {
  DelegatedTaskForbidden,
  SearchInProgress,
  UnsafeQuery,
  WebSearchOutputRefused,
  WebSearchQuotaExhausted,
} from './authoring.errors';
import { toEvidenceResponse } from './authoring.mapper';
import { ResearchConsentsService } from './research-consents.service';
import type {
  ConsentRequiredResponse,
  EvidenceListResponse,
  ReplayDto,
  WebSearchDto,
  WebSearchResponse,
} from './dto/authoring.dto';
import { AuthoringTask } from './entities/authoring-task.entity';
import { WebSearchEvidence } from './entities/web-search-evidence.entity';
import { ReservationRow, ResearchEvidenceQueries } from './research-evidence.queries';
import {
  checkToolOutput,
  MAX_CALLS_PER_TASK,
  MAX_RESULTS_PER_CALL,
  sanitiseQuery,
  WEB_SEARCH_FEATURE,
} from './web-research-rules';

/** What a reuse or replay answers and logs from stored evidence. */
type StoredEvidence = Pick<WebSearchEvidence, 'id' | 'taskId' | 'query' | 'results' | 'toolName'>;

export type WebResearchOutcome =
  { kind: 'consent'; body: ConsentRequiredResponse } | { kind: 'results'; body: WebSearchResponse };

/**
 * The pipeline-authoring web-research facade
 * (`pipeline_authoring_web_search`): delegated tasks refused, consent before
 * the first search (ResearchConsentsService), evidence reused for repeated
 * queries and the quota held by evidence reservations
 * (ResearchEvidenceQueries), at most 6 successful distinct live calls per
 * task and 8 results per call, every call and reuse in the AI log. The
 * binding's readiness and the call are tool-providers' (WebSearchReadiness-
 * and WebSearchCallService).
 */
@Injectable()
export class WebResearchService {
  constructor(
    @InjectRepository(WebSearchEvidence) private readonly evidence: Repository<WebSearchEvidence>,
    private readonly tasks: AuthoringTasksService,
    private readonly consents: ResearchConsentsService,
    private readonly readiness: WebSearchReadinessService,
    private readonly caller: WebSearchCallService,
    private readonly ai: AiGatewayService,
    private readonly tx: TransactionRunner,
    private readonly queries: ResearchEvidenceQueries,
  ) {}

  async search(
    actor: Actor,
    access: SpaceAccess,
    taskId: string,
    dto: WebSearchDto,
  ): Promise<WebResearchOutcome> {
    const sanitised = sanitiseQuery(dto.query);
    const maxResults = dto.max_results ?? MAX_RESULTS_PER_CALL;
    const row = await this.queries.search({
      taskId,
      spaceId: access.space.id,
      userId: actor.userId,
      keyHash: sanitised.ok ? sanitised.value.keyHash : null,
      query: sanitised.ok ? sanitised.value.query : null,
      maxResults,
      quota: MAX_CALLS_PER_TASK,
    });
    // The statement reserves nothing for a missing or delegated task or an unsafe query.
    if (!row) throw new NotFound('authoring task', taskId);
    if (row.delegated) throw new DelegatedTaskForbidden();
    if (!sanitised.ok) throw new UnsafeQuery(sanitised.reason);
    const { query, keyHash } = sanitised.value;

    let ready: ReadyWebSearch;
    try {
      // Without a grant nothing may be contacted (docs/decisions.md#web-search-consent): no health probe, no process.
      ready = await this.readiness.requireReadyFrom(row, { probe: row.grant_id !== null });
    } catch (error) {
      // Not ready: whatever the statement reserved goes back before the refusal.
      if (row.reserved_id) await this.release(row.reserved_id);
      else if (row.slot_taken) await this.queries.giveBack(taskId);
      throw error;
    }
    if (!row.grant_id) {
      const scope: GrantScope = {
        userId: actor.userId,
        spaceId: access.space.id,
        definitionId: row.definition_id,
        rootTaskId: row.root_task_id,
        bindingId: ready.bindingId,
        providerId: ready.providerId,
      };
      const consent = await this.tx.run(async (em) => {
        await this.lockTask(em, taskId);
        return this.consents.findOrAsk(em, scope, taskId);
      });
      return { kind: 'consent', body: { consent } };
    }

    const reservation = await this.reservation(row, taskId, keyHash, query, maxResults, ready, actor.userId);
    if ('reuse' in reservation) {
      const { stored, callsUsed } = reservation.reuse;
      return {
        kind: 'results',
        body: await this.reuse(actor, access, stored, callsUsed, maxResults, 'reuse'),
      };
    }
    return {
      kind: 'results',
      body: await this.live(actor, access, taskId, reservation.id, query, maxResults, ready),
    };
  }

  async listEvidence(access: SpaceAccess, taskId: string): Promise<EvidenceListResponse> {
    const task = await this.tasks.require(access.space.id, taskId, this.evidence.manager);
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
    const task = await this.tasks.require(access.space.id, taskId, this.evidence.manager);
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
    const callsUsed = await this.tasks.callsUsed(task.id, this.evidence.manager);
    return this.reuse(actor, access, stored, callsUsed, MAX_RESULTS_PER_CALL, 'replay');
  }

  private async lockTask(em: EntityManager, taskId: string): Promise<void> {
    await em
      .getRepository(AuthoringTask)
      .findOne({ where: { id: taskId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * What the search statement's reservation came to: the complete evidence
   * to reuse, or the reservation holding a quota slot for the live call. A
   * stale reservation (a call that never finished) is freed once the quota
   * looks used up, then the reservation is tried again, once.
   */
  private async reservation(
    first: ReservationRow,
    taskId: string,
    keyHash: string,
    query: string,
    maxResults: number,
    ready: ReadyWebSearch,
    userId: string,
  ): Promise<{ reuse: { stored: StoredEvidence; callsUsed: number } } | { id: string }> {
    let row = first;
    for (let attempt = 1; ; attempt++) {
      if (row.complete_id) {
        const stored: StoredEvidence = {
          id: row.complete_id,
          taskId,
          query: row.complete_query!,
          results: row.complete_results!,
          toolName: row.complete_tool_name!,
        };
        return { reuse: { stored, callsUsed: row.calls_used } };
      }
      if (row.reserved_id) return { id: row.reserved_id };
      if (row.slot_taken) {
        // A concurrent search of the same query inserted first: give the slot back.
        await this.queries.giveBack(taskId);
        throw new SearchInProgress();
      }
      if (row.in_flight) throw new SearchInProgress();
      const freed = await this.queries.freeStale(taskId);
      if (attempt > 1 || !freed || freed.freed === 0) throw new WebSearchQuotaExhausted();
      row = await this.queries.reserve({
        taskId,
        keyHash,
        query,
        maxResults,
        bindingId: ready.bindingId,
        providerId: ready.providerId,
        toolName: ready.namespacedName,
        userId,
        quota: MAX_CALLS_PER_TASK,
      });
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
      output = await this.caller.call(ready, { query, max_results: maxResults });
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
      this.queries.complete(reservationId, check.results, check.dropped, runId, taskId),
      log('success', `${check.results.length} results stored as evidence ${reservationId}`, null, {
        evidence_id: reservationId,
        result_count: check.results.length,
        dropped: check.dropped,
        redactions: check.redactions,
      }),
    ]);
    // Results are answered only once they are stored as evidence (see ResearchEvidenceQueries' SEARCH_SQL on a lost reservation).
    if (done.completed !== 1)
      throw new Error(`The reservation ${reservationId} was gone when its results came.`);
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
    await this.queries.release(reservationId);
  }

  /** Answers stored evidence (a repeated query, or a replay) and logs it under a run of its own. */
  private async reuse(
    actor: Actor,
    access: SpaceAccess,
    stored: StoredEvidence,
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
