import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { JobContext, JobRunner } from '../../platform/jobs/job-runner.service';
import { AiGatewayService } from '../ai/ai-gateway.service';
import { AiEvalsQueries } from './ai-evals.queries';
import { EVAL_CASES, EvalCase, EvalOutcome } from './cases';
import {
  EvalCaseResultResponse,
  EvalRunDetailResponse,
  EvalRunResponse,
  StartEvalRunDto,
} from './dto/ai-evals.dto';
import { AiEvalResult } from './entities/ai-eval-result.entity';
import { AiEvalRun } from './entities/ai-eval-run.entity';

const RUN_JOB = 'ai_evals.run';
const MAX_ATTEMPTS = 3;
/** The gateway workflow run that groups an eval run's calls carries this feature name. */
const EVALS_FEATURE = 'ai_evals';

interface CaseResult {
  passed: boolean;
  failures: string[];
  logId: string | null;
  latencyMs: number;
}

function toRunResponse(run: AiEvalRun): EvalRunResponse {
  return {
    id: run.id,
    status: run.status,
    features: run.features,
    total: run.total,
    done: run.done,
    passed: run.passed,
    failed: run.failed,
    pass_rate: run.done ? Math.round((run.passed / run.done) * 10_000) / 10_000 : null,
    error: run.error,
    workflow_run_id: run.workflowRunId,
    started_by: run.startedBy,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

/** Runs of the deterministic eval suite: each case through the AI gateway, checked by code, as a background job. */
@Injectable()
export class AiEvalsService implements OnModuleInit {
  private readonly logger = new Logger('AiEvals');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobRunner,
    private readonly gateway: AiGatewayService,
    private readonly audit: AuditService,
    private readonly queries: AiEvalsQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(RUN_JOB, (payload, context) => this.execute(payload.run_id, context), {
      maxAttempts: MAX_ATTEMPTS,
      // The suite makes one provider call per case, each bounded by the gateway's own time-out.
      timeoutMs: 30 * 60_000,
    });
  }

  async start(actor: Actor, dto: StartEvalRunDto): Promise<EvalRunResponse> {
    const known = new Set(EVAL_CASES.map((c) => c.feature));
    const unknown = (dto.features ?? []).filter((f) => !known.has(f));
    if (unknown.length) {
      throw ValidationFailed.field(
        'features',
        `No eval cases exist for ${unknown.join(', ')}; known features: ${[...known].join(', ')}.`,
      );
    }
    const features = dto.features ? [...new Set(dto.features)] : [...known];
    const cases = EVAL_CASES.filter((c) => features.includes(c.feature));
    return this.tx.run(async (em) => {
      const repo = em.getRepository(AiEvalRun);
      const run = await repo.save(
        repo.create({
          status: 'queued',
          features,
          caseIds: cases.map((c) => c.id),
          total: cases.length,
          startedBy: actor.userId,
        }),
      );
      await this.jobs.enqueue(em, RUN_JOB, { run_id: run.id }, { maxAttempts: MAX_ATTEMPTS });
      await this.audit.record(em, actor, {
        action: 'ai_eval.started',
        resourceType: 'ai_eval_run',
        resourceId: run.id,
        details: { features, total: cases.length },
      });
      return toRunResponse(run);
    });
  }

  async list(query: PageQuery): Promise<Page<EvalRunResponse>> {
    const [runs, total] = await this.dataSource
      .getRepository(AiEvalRun)
      .createQueryBuilder('r')
      .orderBy('r.createdAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: runs.map(toRunResponse), total };
  }

  async latest(): Promise<EvalRunResponse> {
    const [run] = await this.dataSource
      .getRepository(AiEvalRun)
      .createQueryBuilder('r')
      .orderBy('r.createdAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .take(1)
      .getMany();
    if (!run) throw new NotFound('eval run');
    return toRunResponse(run);
  }

  async get(runId: string): Promise<EvalRunDetailResponse> {
    const run = await this.dataSource.getRepository(AiEvalRun).findOneBy({ id: runId });
    if (!run) throw new NotFound('eval run', runId);
    const results = await this.dataSource
      .getRepository(AiEvalResult)
      .find({ where: { runId }, order: { position: 'ASC' } });
    const descriptions = new Map(EVAL_CASES.map((c) => [c.id, c.description]));
    return {
      ...toRunResponse(run),
      results: results.map((r): EvalCaseResultResponse => ({
        case_id: r.caseId,
        feature: r.feature,
        description: descriptions.get(r.caseId) ?? '',
        passed: r.passed,
        failures: r.failures,
        log_id: r.logId,
        latency_ms: r.latencyMs,
      })),
    };
  }

  /** The job: resumable, so a retry after a crash skips the cases already recorded. */
  private async execute(runId: string, context: JobContext): Promise<void> {
    const repo = this.dataSource.getRepository(AiEvalRun);
    const run = await repo.findOneBy({ id: runId });
    if (!run || run.status === 'completed' || run.status === 'failed') return;
    try {
      if (!run.workflowRunId) {
        run.workflowRunId = await this.gateway.startRun(EVALS_FEATURE, run.startedBy);
        run.status = 'running';
        run.startedAt = new Date();
        await repo.update(run.id, {
          status: run.status,
          startedAt: run.startedAt,
          workflowRunId: run.workflowRunId,
        });
      }
      const recorded = new Set(
        (
          await this.dataSource
            .getRepository(AiEvalResult)
            .find({ select: { caseId: true }, where: { runId } })
        ).map((r) => r.caseId),
      );
      const byId = new Map(EVAL_CASES.map((c) => [c.id, c]));
      for (const [position, caseId] of run.caseIds.entries()) {
        const evalCase = byId.get(caseId);
        if (recorded.has(caseId) || !evalCase) continue;
        const result = await this.runCase(evalCase, run.startedBy, run.workflowRunId);
        await this.record(run.id, position, evalCase, result);
      }
      await repo.update(run.id, { status: 'completed', finishedAt: new Date() });
      await this.gateway.finishRun(run.workflowRunId, 'succeeded');
    } catch (error) {
      if (context.attempt >= MAX_ATTEMPTS) {
        this.logger.error(`Eval run ${runId} failed: ${String(error)}`);
        await repo.update(run.id, { status: 'failed', finishedAt: new Date(), error: String(error) });
        if (run.workflowRunId) await this.gateway.finishRun(run.workflowRunId, 'failed');
      }
      throw error;
    }
  }

  private async runCase(
    evalCase: EvalCase,
    userId: string | null,
    workflowRunId: string,
  ): Promise<CaseResult> {
    const started = performance.now();
    let outcome: EvalOutcome;
    let logId: string | null;
    try {
      const answer = await this.gateway.complete({
        feature: evalCase.feature,
        promptKey: evalCase.promptKey,
        variables: evalCase.variables,
        userId,
        runId: workflowRunId,
        untrustedVariables: evalCase.untrustedVariables,
        responseFormat: evalCase.responseFormat,
      });
      outcome = { kind: 'answer', text: answer.text, json: answer.json };
      logId = answer.logId;
    } catch (error) {
      // A refusal (budget, guardrail, provider failure) is an outcome the checks judge, not a crash of the run.
      if (!(error instanceof DomainError)) throw error;
      const { code, log_id: refusedLogId } = error.extensions as { code?: string; log_id?: string };
      outcome = { kind: 'refused', code: code ?? error.slug, detail: error.detail };
      logId = refusedLogId ?? null;
    }
    const failures = evalCase.checks.flatMap((check) => check(outcome));
    return { passed: !failures.length, failures, logId, latencyMs: Math.round(performance.now() - started) };
  }

  private async record(
    runId: string,
    position: number,
    evalCase: EvalCase,
    result: CaseResult,
  ): Promise<void> {
    await this.tx.run(async (em) => {
      const inserted = await em
        .createQueryBuilder()
        .insert()
        .into(AiEvalResult)
        .values({
          runId,
          caseId: evalCase.id,
          position,
          feature: evalCase.feature,
          passed: result.passed,
          failures: result.failures,
          logId: result.logId,
          latencyMs: result.latencyMs,
        })
        .orIgnore()
        .returning(['caseId'])
        .execute();
      if (!inserted.raw.length) return;
      await this.queries.countResult(em, runId, result.passed);
    });
  }
}
