import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import { SpaceAccess } from '../../common/permissions/space-access.port';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction.runner';
import { cronError, nextOccurrence } from '../../platform/jobs/cron';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { ConnectorsService } from '../connectors/connectors.service';
import { findColumn, SourceCatalog } from '../connectors/source-catalog.service';
import { UserDatabaseError } from '../connectors/user-database.client';
import { checkConfigErrors } from './check-config';
import {
  CheckResponse,
  CheckRunResponse,
  CreateCheckDto,
  ListChecksQuery,
  UpdateCheckDto,
} from './dto/quality.dto';
import { CheckRun } from './entities/check-run.entity';
import { Check, CheckType, Severity } from './entities/check.entity';
import { toCheckResponse, toRunResponse } from './quality.mapper';

/**
 * Quality checks: CRUD (validated against the source's own catalog) and
 * reads, including the run history. Running a check, pushed results and
 * schedules are the CheckRunnerService's.
 */
@Injectable()
export class ChecksService {
  private readonly logger = new Logger(ChecksService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly products: ProductDirectoryService,
    private readonly connectors: ConnectorsService,
    private readonly catalog: SourceCatalog,
  ) {}

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

  // Internals.

  private async find(em: EntityManager, spaceId: string, checkId: string, lock = false): Promise<Check> {
    const check = await em.getRepository(Check).findOne({
      where: { id: checkId, spaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!check) throw new NotFound('check', checkId);
    return check;
  }

  private async checkProduct(em: EntityManager, spaceId: string, productId: string, errors: FieldError[]) {
    const [product] = await this.products.namesOf(em, [productId], spaceId);
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
