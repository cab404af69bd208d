import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { alertMove } from './alert-correlation';
import { AlertIngestion } from './alert-ingestion.service';
import { AlertResponse, CreateAlertDto, ListAlertsQuery } from './dto/quality.dto';
import { Alert, AlertType } from './entities/alert.entity';
import type { Severity } from './entities/check.entity';
import { AlertMoveForbidden } from './quality.errors';
import { alertEventData, toAlertResponse } from './quality.mapper';

@Injectable()
export class AlertsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly ingestion: AlertIngestion,
    private readonly products: ProductDirectoryService,
    private readonly outbox: OutboxService,
  ) {}

  /** An alert pushed by a monitoring tool; it is correlated like any other. */
  async create(actor: Actor, access: SpaceAccess, dto: CreateAlertDto): Promise<AlertResponse> {
    const spaceId = access.space.id;
    return this.tx.run(async (em) => {
      const [product] = await this.products.namesOf(em, [dto.product_id], spaceId);
      if (!product) {
        throw ValidationFailed.field('product_id', 'product_id must name a product of this space.');
      }
      const { alert } = await this.ingestion.open(em, {
        spaceId,
        productId: product.id,
        productName: product.name,
        alertType: dto.alert_type as AlertType,
        severity: dto.severity as Severity,
        message: dto.message,
        metadata: dto.metadata,
        actorId: actor.userId,
      });
      return toAlertResponse(alert);
    }, actor);
  }

  async list(access: SpaceAccess, query: ListAlertsQuery): Promise<Page<AlertResponse>> {
    const qb = this.dataSource
      .getRepository(Alert)
      .createQueryBuilder('a')
      .where('a.spaceId = :spaceId', { spaceId: access.space.id });
    if (query.status) qb.andWhere('a.status = :status', { status: query.status });
    if (query.severity) qb.andWhere('a.severity = :severity', { severity: query.severity });
    if (query.alert_type) qb.andWhere('a.alertType = :alertType', { alertType: query.alert_type });
    if (query.product_id) qb.andWhere('a.productId = :productId', { productId: query.product_id });
    if (query.incident_id) qb.andWhere('a.incidentId = :incidentId', { incidentId: query.incident_id });
    if (query.check_id) qb.andWhere('a.checkId = :checkId', { checkId: query.check_id });
    const [alerts, total] = await qb
      .orderBy('a.createdAt', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: alerts.map(toAlertResponse), total };
  }

  async get(access: SpaceAccess, alertId: string): Promise<AlertResponse> {
    const alert = await this.dataSource
      .getRepository(Alert)
      .findOneBy({ id: alertId, spaceId: access.space.id });
    if (!alert) throw new NotFound('alert', alertId);
    return toAlertResponse(alert);
  }

  async acknowledge(actor: Actor, access: SpaceAccess, alertId: string): Promise<AlertResponse> {
    return this.move(actor, access, alertId, 'acknowledge');
  }

  async resolve(actor: Actor, access: SpaceAccess, alertId: string): Promise<AlertResponse> {
    return this.move(actor, access, alertId, 'resolve');
  }

  private async move(
    actor: Actor,
    access: SpaceAccess,
    alertId: string,
    action: 'acknowledge' | 'resolve',
  ): Promise<AlertResponse> {
    return this.tx.run(async (em) => {
      const alert = await em
        .getRepository(Alert)
        .findOne({ where: { id: alertId, spaceId: access.space.id }, lock: { mode: 'pessimistic_write' } });
      if (!alert) throw new NotFound('alert', alertId);
      const next = alertMove(alert.status, action);
      if (!next) throw new AlertMoveForbidden(alert.status, action);
      const now = new Date();
      alert.status = next;
      if (action === 'acknowledge') {
        alert.acknowledgedAt = now;
        alert.acknowledgedBy = actor.userId;
      } else {
        alert.resolvedAt = now;
        alert.resolvedBy = actor.userId;
      }
      alert.updatedAt = now;
      await em.getRepository(Alert).save(alert);
      if (action === 'resolve') {
        await this.outbox.append(em, {
          type: 'alert.resolved',
          spaceId: alert.spaceId,
          actorId: actor.userId,
          data: alertEventData(alert),
        });
      }
      return toAlertResponse(alert);
    }, actor);
  }
}
