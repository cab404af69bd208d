import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { SpaceAccess, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction-runner';
import { cronError, nextOccurrence } from '../../platform/jobs/cron';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductsService } from '../catalog/products.service';
import { ConnectorsService } from '../connectors/connectors.service';
import { findColumn, SourceCatalog } from '../connectors/source-catalog';
import { UserDatabaseError } from '../connectors/user-database';
import { alertTypeForCheck } from './alert-correlation';
import { AlertIngestion } from './alert-ingestion.service';
import { checkConfigErrors } from './check-config';
import { Evaluation, evaluateCheck } from './check-evaluators';
import {
  CheckResponse,
  CheckRunResponse,
  CreateCheckDto,
  ListChecksQuery,
  PushResultDto,
  RunResultResponse,
  UpdateCheckDto,
} from './dto/quality.dto';
import { CheckRun, RunSource } from './entities/check-run.entity';
import { Check, CheckType, Severity } from './entities/check.entity';
import { CheckNotRunnable } from './quality.errors';
import { runEventData, toCheckResponse, toRunResponse } from './quality.mapper';
import { QualityQueries } from './quality.queries';

const SWEEP_JOB = 'quality.checks.sweep';
const RUN_JOB = 'quality.checks.run';
const SWEEP_BATCH = 100;

/**
 * Quality checks: CRUD, runs against the connector's database, pushed
 * results, run history and schedules. Schedules: a cron sweeper runs every
 * minute on whichever replica claims it (job_schedules), claims the due
 * checks with FOR UPDATE SKIP LOCKED, advances each one's `next_run_at`,
 * and enqueues one run job per occurrence under a singleton key, so each
 * occurrence runs once across replicas.
 */
@Injectable()
export class ChecksService implements OnModuleInit {
  private readonly logger = new Logger(ChecksService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly products: ProductsService,
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

  // CRUD.

  async create(actor: Actor, access: SpaceAccess, dto: CreateCheckDto): Promise<CheckResponse> {
    const spaceId = access.space.id;
    const checkType = dto.check_type as CheckType;
    // The source is asked before our transaction opens (none is held while a user's database is talked to).
    const sourceErrors = await this.sourceErrors(spaceId, dto.connector_id, checkType, dto.config);
    return this.tx.run(async (em) => {
      const errors: FieldError[] = [];
      await this.checkProduct(em, spaceId, dto.product_id, errors);
      await this.checkConnector(em, spaceId, dto.connector_id, errors);
      errors.push(...checkConfigErrors(checkType, dto.config));
      errors.push(...scheduleErrors(checkType, dto.schedule_cron));
      if (errors.length) throw new ValidationFailed(errors);
      if (sourceErrors.length) throw new ValidationFailed(sourceErrors);
      const isEnabled = dto.is_enabled ?? true;
      const repo = em.getRepository(Check);
      const check = await repo.save(
        repo.create({
          spaceId,
          productId: dto.product_id,
          connectorId: dto.connector_id ?? null,
          name: dto.name,
          description: dto.description ?? null,
          checkType,
          severity: dto.severity as Severity,
          config: jsonValue(dto.config) as Record<string, unknown>,
          scheduleCron: dto.schedule_cron ?? null,
          isEnabled,
          nextRunAt: nextRun(dto.schedule_cron ?? null, isEnabled),
          createdBy: actor.userId,
        }),
      );
      return toCheckResponse(check);
    });
  }

  async list(access: SpaceAccess, query: ListChecksQuery): Promise<Page<CheckResponse>> {
    const qb = this.dataSource
      .getRepository(Check)
      .createQueryBuilder('c')
      .where('c.spaceId = :spaceId', { spaceId: access.space.id });
    if (query.product_id) qb.andWhere('c.productId = :productId', { productId: query.product_id });
    if (query.check_type) qb.andWhere('c.checkType = :checkType', { checkType: query.check_type });
    const [checks, total] = await qb
      .orderBy('c.createdAt', 'DESC')
      .addOrderBy('c.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: checks.map(toCheckResponse), total };
  }

  async get(access: SpaceAccess, checkId: string): Promise<CheckResponse> {
    return toCheckResponse(await this.find(this.dataSource.manager, access.space.id, checkId));
  }

  async update(
    _actor: Actor,
    access: SpaceAccess,
    checkId: string,
    dto: UpdateCheckDto,
  ): Promise<CheckResponse> {
    let sourceErrors: FieldError[] = [];
    if (dto.config !== undefined || dto.connector_id) {
      const current = await this.find(this.dataSource.manager, access.space.id, checkId);
      sourceErrors = await this.sourceErrors(
        current.spaceId,
        dto.connector_id === undefined ? current.connectorId : dto.connector_id,
        current.checkType,
        dto.config ?? current.config,
      );
    }
    return this.tx.run(async (em) => {
      const check = await this.find(em, access.space.id, checkId, true);
      const errors: FieldError[] = [];
      if (dto.connector_id !== undefined)
        await this.checkConnector(em, check.spaceId, dto.connector_id, errors);
      if (dto.config !== undefined) errors.push(...checkConfigErrors(check.checkType, dto.config));
      if (dto.schedule_cron !== undefined) errors.push(...scheduleErrors(check.checkType, dto.schedule_cron));
      if (errors.length) throw new ValidationFailed(errors);
      if (sourceErrors.length) throw new ValidationFailed(sourceErrors);
      if (dto.name !== undefined) check.name = dto.name;
      if (dto.description !== undefined) check.description = dto.description;
      if (dto.severity !== undefined) check.severity = dto.severity as Severity;
      if (dto.config !== undefined) check.config = dto.config;
      if (dto.connector_id !== undefined) check.connectorId = dto.connector_id;
      const scheduleChanged =
        (dto.schedule_cron !== undefined && dto.schedule_cron !== check.scheduleCron) ||
        (dto.is_enabled !== undefined && dto.is_enabled !== check.isEnabled);
      if (dto.schedule_cron !== undefined) check.scheduleCron = dto.schedule_cron;
      if (dto.is_enabled !== undefined) check.isEnabled = dto.is_enabled;
      if (scheduleChanged) check.nextRunAt = nextRun(check.scheduleCron, check.isEnabled);
      check.updatedAt = new Date();
      await em.getRepository(Check).save(check);
      return toCheckResponse(check);
    });
  }

  async delete(_actor: Actor, access: SpaceAccess, checkId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const result = await em.getRepository(Check).delete({ id: checkId, spaceId: access.space.id });
      if (!result.affected) throw new NotFound('check', checkId);
    });
  }

  async runs(access: SpaceAccess, checkId: string, page: PageQuery): Promise<Page<CheckRunResponse>> {
    const check = await this.find(this.dataSource.manager, access.space.id, checkId);
    const [runs, total] = await this.dataSource
      .getRepository(CheckRun)
      .createQueryBuilder('r')
      .where('r.checkId = :checkId', { checkId: check.id })
      .orderBy('r.createdAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(page.skip ?? 0)
      .take(page.limit ?? 50)
      .getManyAndCount();
    return { items: runs.map(toRunResponse), total };
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
      const product = await this.products.getInSpace(check.spaceId, check.productId, this.dataSource.manager);
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
      const [product] = await this.products.namesOf([check.productId], em);
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

  // Internals.

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

  private async find(em: EntityManager, spaceId: string, checkId: string, lock = false): Promise<Check> {
    const check = await em.getRepository(Check).findOne({
      where: { id: checkId, spaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!check) throw new NotFound('check', checkId);
    return check;
  }

  private async checkProduct(em: EntityManager, spaceId: string, productId: string, errors: FieldError[]) {
    const [product] = await this.products.namesOf([productId], em, spaceId);
    if (!product) {
      errors.push({ field: 'product_id', message: 'product_id must name a product of this space.' });
    }
  }

  /**
   * The configured table and column checked against the source's own catalog,
   * when the connector can be reached: a name it does not hold is a 422 now
   * rather than an `error` run later. An unreachable source (or an unknown
   * connector, reported separately) is not held against the check; its runs
   * report a missing table or column as `error` (a schema check: `failed`).
   */
  private async sourceErrors(
    spaceId: string,
    connectorId: string | null | undefined,
    checkType: CheckType,
    config: Record<string, unknown>,
  ): Promise<FieldError[]> {
    if (!connectorId || typeof config.table !== 'string') return [];
    if (checkConfigErrors(checkType, config).length) return [];
    const tableName = config.table;
    try {
      return await this.connectors.withReadOnlySession(spaceId, connectorId, async (session) => {
        const found = await this.catalog.resolveTable(session, tableName);
        if (!found) {
          return [
            {
              field: 'config.table',
              message: `Table ${tableName} was not found in the source database (or the connector's role cannot see it).`,
            },
          ];
        }
        if (typeof config.column === 'string' && !findColumn(found, config.column)) {
          return [
            {
              field: 'config.column',
              message: `Column ${config.column} was not found in table ${found.display}.`,
            },
          ];
        }
        return [];
      });
    } catch (error) {
      if (error instanceof UserDatabaseError || (error instanceof DomainError && error.status === 404))
        return [];
      throw error;
    }
  }

  private async checkConnector(
    em: EntityManager,
    spaceId: string,
    connectorId: string | null | undefined,
    errors: FieldError[],
  ) {
    if (!connectorId) return;
    if (!(await this.connectors.existsInSpace(spaceId, connectorId, em))) {
      errors.push({ field: 'connector_id', message: 'connector_id must name a connector of this space.' });
    }
  }
}

function scheduleErrors(checkType: CheckType, cron: string | null | undefined): FieldError[] {
  if (!cron) return [];
  if (checkType === 'custom') {
    return [
      { field: 'schedule_cron', message: 'A custom check takes pushed results and cannot be scheduled.' },
    ];
  }
  if (cron.trim().split(/\s+/).length !== 5) {
    return [{ field: 'schedule_cron', message: 'schedule_cron must be a five-field cron expression.' }];
  }
  const error = cronError(cron);
  return error
    ? [{ field: 'schedule_cron', message: `schedule_cron is not a valid cron expression: ${error}` }]
    : [];
}

function nextRun(cron: string | null, enabled: boolean): Date | null {
  return cron && enabled ? nextOccurrence(cron, new Date()) : null;
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
