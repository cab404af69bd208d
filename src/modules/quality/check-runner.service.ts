import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, NotFound } from '../../common/errors/domain-error';
import { SpaceAccessPort } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { nextOccurrence } from '../../platform/jobs/cron';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { ConnectorsService } from '../connectors/connectors.service';
import { SourceCatalog } from '../connectors/source-catalog.service';
import { UserDatabaseError } from '../connectors/user-database.client';
import { alertTypeForCheck } from './alert-correlation';
import { AlertIngestion } from './alert-ingestion.service';
import { checkConfigErrors } from './check-config';
import { Evaluation, evaluateCheck } from './check-evaluators';
import { PushResultDto, RunResultResponse } from './dto/quality.dto';
import { CheckRun, RunSource } from './entities/check-run.entity';
import { Check } from './entities/check.entity';
import { CheckNotRunnable } from './quality.errors';
import { runEventData } from './quality.mapper';
import { QualityQueries } from './quality.queries';

const SWEEP_JOB = 'quality.checks.sweep';
const RUN_JOB = 'quality.checks.run';
const SWEEP_BATCH = 100;

/**
 * The check runner: manual runs against the connector's database, pushed
 * results, recording a run (and its alert), and schedules. Schedules: a cron
 * sweeper runs every minute on whichever replica claims it (job_schedules),
 * claims the due checks with FOR UPDATE SKIP LOCKED, advances each one's
 * `next_run_at`, and enqueues one run job per occurrence under a singleton
 * key, so each occurrence runs once across replicas.
 */
@Injectable()
export class CheckRunnerService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly products: ProductDirectoryService,
    private readonly connectors: ConnectorsService,
    private readonly catalog: SourceCatalog,
    private readonly ingestion: AlertIngestion,
    private readonly jobs: JobRunner,
    private readonly queries: QualityQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(SWEEP_JOB, async () => void (await this.sweep()), {
      maxAttempts: 1,
      timeoutMs: 30_000,
    });
    this.jobs.registerCron(SWEEP_JOB, '* * * * *', SWEEP_JOB);
    // A scheduled run that fails to record is not retried: the next occurrence comes soon enough.
    this.jobs.register(RUN_JOB, (payload) => this.runScheduled(payload.check_id), {
      maxAttempts: 1,
      timeoutMs: 60_000,
    });
  }

  // Runs.

  /** Runs a check now (edit access to its space). */
  async run(actor: Actor, checkId: string): Promise<RunResultResponse> {
    const check = await this.authorize(actor, checkId);
    if (check.checkType === 'custom') throw new CheckNotRunnable();
    const started = Date.now();
    // No transaction is held while the user's database is queried.
    const evaluation = await this.evaluate(check);
    const run = await this.tx.run((em) =>
      this.record(em, check, evaluation, 'manual', actor.userId, Date.now() - started),
    );
    return result(run);
  }

  /** Records a result computed elsewhere (dbt, Great Expectations), like a run. */
  async pushResult(actor: Actor, checkId: string, dto: PushResultDto): Promise<RunResultResponse> {
    const check = await this.authorize(actor, checkId);
    const evaluation: Evaluation = {
      status: dto.passed ? 'passed' : 'failed',
      observedValue: dto.observed_value ?? null,
      message: dto.message ?? (dto.passed ? 'Reported passed.' : 'Reported failed.'),
    };
    const run = await this.tx.run((em) => this.record(em, check, evaluation, 'pushed', actor.userId, null));
    return result(run);
  }

  /**
   * Records a pushed result in the caller's transaction, for another module
   * that already decided the caller may (OpenLineage assertions, through
   * QualitySignalsService).
   */
  async recordPushed(
    em: EntityManager,
    check: Check,
    passed: boolean,
    message: string,
    actorId: string | null,
  ): Promise<CheckRun> {
    const evaluation: Evaluation = { status: passed ? 'passed' : 'failed', observedValue: null, message };
    return this.record(em, check, evaluation, 'pushed', actorId, null);
  }

  /** Claims the due scheduled checks and enqueues one run each. Answers how many were enqueued. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.tx.run(async (em) => {
        const due = await this.queries.claimDueChecks(em, SWEEP_BATCH);
        for (const row of due) {
          await this.jobs.enqueue(
            em,
            RUN_JOB,
            { check_id: row.id },
            { singletonKey: `quality-check:${row.id}:${row.next_run_at.toISOString()}` },
          );
          await this.queries.setNextRun(em, row.id, nextOccurrence(row.schedule_cron, new Date()));
        }
        return due.length;
      });
      total += claimed;
      if (claimed < SWEEP_BATCH) return total;
    }
  }

  private async runScheduled(checkId: string): Promise<void> {
    const check = await this.dataSource.getRepository(Check).findOneBy({ id: checkId });
    if (!check || !check.isEnabled || !check.scheduleCron || check.checkType === 'custom') return;
    const started = Date.now();
    const evaluation = await this.evaluate(check);
    await this.tx.run((em) => this.record(em, check, evaluation, 'schedule', null, Date.now() - started));
  }

  /** Evaluates on the connector's database; anything that goes wrong is an `error` result, never a throw. */
  private async evaluate(check: Check): Promise<Evaluation> {
    if (!check.connectorId) {
      return { status: 'error', observedValue: null, message: 'The check has no connector to run on.' };
    }
    const configErrors = checkConfigErrors(check.checkType, check.config);
    if (configErrors.length) {
      return {
        status: 'error',
        observedValue: null,
        message: `Invalid configuration: ${configErrors[0].message}`,
      };
    }
    try {
      const product = await this.products.getInSpace(this.dataSource.manager, check.spaceId, check.productId);
      const timeout = check.config.timeout_seconds as number | undefined;
      return await this.connectors.withReadOnlySession(
        check.spaceId,
        check.connectorId,
        (session) =>
          evaluateCheck(session, {
            checkType: check.checkType,
            config: check.config,
            slaFreshnessMinutes: product.sla_freshness_minutes,
            // Uncached: a run reports the source as it is now.
            resolveTable: (name) => this.catalog.resolveTable(session, name),
          }),
        { statementTimeoutMs: timeout ? timeout * 1000 : undefined },
      );
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) {
        return { status: 'error', observedValue: null, message: "The check's connector no longer exists." };
      }
      const message =
        error instanceof UserDatabaseError || error instanceof Error ? error.message : String(error);
      return { status: 'error', observedValue: null, message: message.slice(0, 1000) };
    }
  }

  /** Writes a run; a failed one opens an alert (correlated into an incident). */
  private async record(
    em: EntityManager,
    check: Check,
    evaluation: Evaluation,
    source: RunSource,
    actorId: string | null,
    durationMs: number | null,
  ): Promise<CheckRun> {
    const repo = em.getRepository(CheckRun);
    const run = await repo.save(
      repo.create({
        checkId: check.id,
        spaceId: check.spaceId,
        status: evaluation.status,
        observedValue: evaluation.observedValue,
        message: evaluation.message,
        source,
        durationMs,
        triggeredBy: actorId,
      }),
    );
    if (evaluation.status === 'failed') {
      const [product] = await this.products.namesOf(em, [check.productId]);
      const { alert } = await this.ingestion.open(em, {
        spaceId: check.spaceId,
        productId: check.productId,
        productName: product?.name ?? check.productId,
        alertType: alertTypeForCheck(check.checkType),
        severity: check.severity,
        message: `${check.name}: ${evaluation.message}`,
        metadata: { check_type: check.checkType, observed_value: evaluation.observedValue, source },
        checkId: check.id,
        runId: run.id,
        actorId,
      });
      run.alertId = alert.id;
      await repo.update(run.id, { alertId: alert.id });
    }
    await em
      .getRepository(Check)
      .update(check.id, { lastRunAt: run.createdAt, lastStatus: evaluation.status });
    // An error run (the check could not be evaluated) is reported as failed too, with status "error".
    await this.outbox.append(em, {
      type: evaluation.status === 'passed' ? 'quality_check.passed' : 'quality_check.failed',
      spaceId: check.spaceId,
      actorId,
      data: runEventData(run, check),
    });
    return run;
  }

  /** The check, if the caller has edit access to its space; 404 for a check they cannot see. */
  private async authorize(actor: Actor, checkId: string): Promise<Check> {
    const check = await this.dataSource.getRepository(Check).findOneBy({ id: checkId });
    if (!check) throw new NotFound('check', checkId);
    try {
      await this.access.requireRole(actor, check.spaceId, 'editor', this.dataSource.manager);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new NotFound('check', checkId);
      throw error;
    }
    return check;
  }
}

function result(run: CheckRun): RunResultResponse {
  return {
    run_id: run.id,
    status: run.status,
    observed_value: run.observedValue,
    message: run.message,
    alert_id: run.alertId,
  };
}
