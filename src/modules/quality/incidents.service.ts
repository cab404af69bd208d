import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import { SpaceAccess, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { LineageService } from '../catalog/lineage.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { NotificationsService } from '../notifications/notifications.service';
import { TicketsService } from '../tickets/tickets.service';
import { incidentMove } from './alert-correlation';
import { AlertIngestion } from './alert-ingestion.service';
import { QualityQueries } from './quality.queries';
import {
  IncidentDetailResponse,
  IncidentResponse,
  LinkTicketDto,
  ListIncidentsQuery,
  NotifyDownstreamResponse,
  TimelineEntryResponse,
  UpdateIncidentDto,
} from './dto/quality.dto';
import { Alert } from './entities/alert.entity';
import type { Severity } from './entities/check.entity';
import { IncidentEvent } from './entities/incident-event.entity';
import { Incident, IncidentStatus } from './entities/incident.entity';
import { alertEventData, incidentEventData, toAlertResponse, toIncidentResponse } from './quality.mapper';

export const INCIDENTS_FEATURE = 'quality.incidents';

/** The Incidents endpoints of the specification, behind the space's `quality.incidents` feature. */
@Injectable()
export class IncidentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly products: ProductDirectoryService,
    private readonly lineage: LineageService,
    private readonly notifications: NotificationsService,
    private readonly tickets: TicketsService,
    private readonly ingestion: AlertIngestion,
    private readonly queries: QualityQueries,
  ) {}

  async list(access: SpaceAccess, query: ListIncidentsQuery): Promise<Page<IncidentResponse>> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    const qb = this.dataSource
      .getRepository(Incident)
      .createQueryBuilder('i')
      .where('i.spaceId = :spaceId', { spaceId: access.space.id });
    if (query.status) qb.andWhere('i.status = :status', { status: query.status });
    const incidents = await qb
      .orderBy('i.createdAt', 'DESC')
      .addOrderBy('i.id', 'DESC')
      .offset(query.skip ?? 0)
      .limit(query.limit ?? 50)
      .getMany();
    // The total comes from the per-status counters, not from counting the space's incidents.
    const total = await this.queries.incidentTotal(
      this.dataSource.manager,
      access.space.id,
      query.status as IncidentStatus | undefined,
    );
    return { items: incidents.map(toIncidentResponse), total };
  }

  async get(access: SpaceAccess, incidentId: string): Promise<IncidentDetailResponse> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    return this.detail(this.dataSource.manager, await this.find(this.dataSource.manager, access, incidentId));
  }

  async timeline(access: SpaceAccess, incidentId: string): Promise<TimelineEntryResponse[]> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    const em = this.dataSource.manager;
    const incident = await this.find(em, access, incidentId);
    const alerts = await em.getRepository(Alert).find({ where: { incidentId: incident.id } });
    const events = await em.getRepository(IncidentEvent).find({ where: { incidentId: incident.id } });
    const entries: (TimelineEntryResponse & { at: number })[] = [
      ...alerts.map((a) => ({
        at: a.createdAt.getTime(),
        entry_type: 'alert',
        added_at: a.createdAt.toISOString(),
        alert_id: a.id,
        alert_type: a.alertType,
        severity: a.severity,
        product_id: a.productId,
        message: a.message,
        from_status: null,
        to_status: null,
        changed_by: null,
      })),
      ...events.map((e) => ({
        at: e.createdAt.getTime(),
        entry_type: 'status_change',
        added_at: e.createdAt.toISOString(),
        alert_id: null,
        alert_type: null,
        severity: null,
        product_id: null,
        message: null,
        from_status: e.fromStatus,
        to_status: e.toStatus,
        changed_by: e.actorId,
      })),
    ];
    // Chronological; at the same instant an alert comes before a status change.
    entries.sort(
      (a, b) => a.at - b.at || (a.entry_type === b.entry_type ? 0 : a.entry_type === 'alert' ? -1 : 1),
    );
    return entries.map(({ at: _at, ...entry }) => entry);
  }

  async update(
    actor: Actor,
    access: SpaceAccess,
    incidentId: string,
    dto: UpdateIncidentDto,
  ): Promise<IncidentDetailResponse> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    return this.tx.run(async (em) => {
      const incident = await this.find(em, access, incidentId, true);
      const changed: string[] = [];
      const previousSeverity = incident.severity;
      if (dto.root_cause !== undefined && dto.root_cause !== incident.rootCause) {
        incident.rootCause = dto.root_cause;
        changed.push('root_cause');
      }
      if (dto.description !== undefined && dto.description !== incident.description) {
        incident.description = dto.description;
        changed.push('description');
      }
      if (dto.severity !== undefined && dto.severity !== incident.severity) {
        incident.severity = dto.severity as Severity;
        changed.push('severity');
      }
      if (dto.root_product_id !== undefined) {
        if (dto.root_product_id !== null) {
          const [product] = await this.products.namesOf(em, [dto.root_product_id], incident.spaceId);
          if (!product) {
            throw ValidationFailed.field(
              'root_product_id',
              'root_product_id must name a product of this space.',
            );
          }
          incident.rootProductPinned = true;
          if (incident.rootProductId !== product.id) {
            incident.rootProductId = product.id;
            changed.push('root_product_id');
          }
        } else {
          // Unpinned: the root is the most upstream product among the alerts again.
          incident.rootProductPinned = false;
          const productIds = (
            await em
              .getRepository(Alert)
              .find({ where: { incidentId: incident.id }, select: { productId: true } })
          ).map((a) => a.productId);
          const root = await this.lineage.mostUpstream(productIds, em);
          if (root !== incident.rootProductId) {
            incident.rootProductId = root;
            changed.push('root_product_id');
          }
        }
        if (changed.includes('root_product_id') && (await this.ingestion.refreshBlastRadius(em, incident))) {
          changed.push('blast_radius_snapshot');
        }
      }
      let resolvedNow = false;
      if (dto.status !== undefined && dto.status !== incident.status) {
        resolvedNow = await this.moveStatus(em, actor, incident, dto.status as IncidentStatus);
        changed.push('status');
      }
      if (changed.length) {
        incident.updatedAt = new Date();
        await em.getRepository(Incident).save(incident);
        await this.outbox.append(em, {
          type: 'incident.updated',
          spaceId: incident.spaceId,
          actorId: actor.userId,
          data: { ...incidentEventData(incident), changed, previous_severity: previousSeverity },
        });
        if (resolvedNow) await this.afterResolve(em, actor, incident);
      }
      return this.detail(em, incident);
    });
  }

  async resolve(actor: Actor, access: SpaceAccess, incidentId: string): Promise<IncidentDetailResponse> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    return this.tx.run(async (em) => {
      const incident = await this.find(em, access, incidentId, true);
      // Resolving a resolved incident changes nothing (its resolved_at stays).
      if (incident.status !== 'resolved') {
        await this.moveStatus(em, actor, incident, 'resolved');
        incident.updatedAt = new Date();
        await em.getRepository(Incident).save(incident);
        await this.afterResolve(em, actor, incident);
      }
      return this.detail(em, incident);
    }, actor);
  }

  async notifyDownstream(
    actor: Actor,
    access: SpaceAccess,
    incidentId: string,
  ): Promise<NotifyDownstreamResponse> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    return this.tx.run(async (em) => {
      const incident = await this.find(em, access, incidentId, true);
      const products = await this.products.namesOf(em, incident.blastRadiusIds);
      const governance = await this.products.ownersAndStewardsOf(
        em,
        products.map((p) => p.id),
      );
      const users = [...new Set(governance.flatMap((g) => [...g.ownerIds, ...g.stewardIds]))];
      const notified = await this.notifications.notify(em, {
        recipients: users,
        type: 'quality_alert',
        title: `Upstream incident: ${incident.title}`,
        message:
          `A ${incident.severity} incident upstream ("${incident.title}") may affect data products you own or steward: ` +
          `${products.map((p) => p.name).join(', ')}.`,
        data: {
          incident_id: incident.id,
          product_id: incident.rootProductId ?? undefined,
          severity: incident.severity,
          space_id: incident.spaceId,
        },
      });
      incident.downstreamNotifiedAt = new Date();
      await em
        .getRepository(Incident)
        .update(incident.id, { downstreamNotifiedAt: incident.downstreamNotifiedAt });
      return { notified_users: notified, affected_products: products.length };
    });
  }

  async linkTicket(
    actor: Actor,
    access: SpaceAccess,
    incidentId: string,
    dto: LinkTicketDto,
  ): Promise<IncidentDetailResponse> {
    this.access.requireFeature(access.space, INCIDENTS_FEATURE);
    return this.tx.run(async (em) => {
      const incident = await this.find(em, access, incidentId);
      await this.tickets.linkIncident(em, actor.userId, incident.spaceId, dto.ticket_id, incident.id);
      return this.detail(em, incident);
    });
  }

  // Internals.

  private async find(
    em: EntityManager,
    access: SpaceAccess,
    incidentId: string,
    lock = false,
  ): Promise<Incident> {
    const incident = await em.getRepository(Incident).findOne({
      where: { id: incidentId, spaceId: access.space.id },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!incident) throw new NotFound('incident', incidentId);
    return incident;
  }

  /** Applies a status move (every move is allowed) and records it; answers whether it resolved the incident. */
  private async moveStatus(
    em: EntityManager,
    actor: Actor,
    incident: Incident,
    to: IncidentStatus,
  ): Promise<boolean> {
    const from = incident.status;
    const effect = incidentMove(from, to);
    incident.status = to;
    if (effect === 'set_resolved') incident.resolvedAt = new Date();
    if (effect === 'clear_resolved') incident.resolvedAt = null;
    await em
      .getRepository(IncidentEvent)
      .insert({ incidentId: incident.id, fromStatus: from, toStatus: to, actorId: actor.userId });
    await this.queries.moveIncidentCount(em, incident.spaceId, from, to);
    return effect === 'set_resolved';
  }

  /**
   * Resolving resolves the incident's unresolved alerts (open or
   * acknowledged) and tells the owners and stewards of their products (and of
   * the blast radius, when it was notified) with `quality_resolved`.
   */
  private async afterResolve(em: EntityManager, actor: Actor, incident: Incident): Promise<void> {
    const alerts = await em.getRepository(Alert).find({
      where: { incidentId: incident.id, status: In(['open', 'acknowledged']) },
      lock: { mode: 'pessimistic_write' },
    });
    const now = incident.resolvedAt ?? new Date();
    for (const alert of alerts) {
      alert.status = 'resolved';
      alert.resolvedAt = now;
      alert.resolvedBy = actor.userId;
      alert.updatedAt = now;
      await em.getRepository(Alert).save(alert);
      await this.outbox.append(em, {
        type: 'alert.resolved',
        spaceId: incident.spaceId,
        actorId: actor.userId,
        data: alertEventData(alert),
      });
    }
    await this.outbox.append(em, {
      type: 'incident.resolved',
      spaceId: incident.spaceId,
      actorId: actor.userId,
      data: incidentEventData(incident),
    });
    const productIds = await this.queries.productIdsOfIncident(em, incident.id);
    if (incident.downstreamNotifiedAt) productIds.push(...incident.blastRadiusIds);
    const governance = await this.products.ownersAndStewardsOf(em, [...new Set(productIds)]);
    const users = [...new Set(governance.flatMap((g) => [...g.ownerIds, ...g.stewardIds]))];
    if (!users.length) return;
    await this.notifications.notify(em, {
      recipients: users,
      type: 'quality_resolved',
      title: `Resolved: ${incident.title}`,
      message: `The incident "${incident.title}" was resolved${incident.rootCause ? `. Root cause: ${incident.rootCause}` : '.'}`,
      data: {
        incident_id: incident.id,
        product_id: incident.rootProductId ?? undefined,
        space_id: incident.spaceId,
      },
    });
  }

  private async detail(em: EntityManager, incident: Incident): Promise<IncidentDetailResponse> {
    const alerts = await em
      .getRepository(Alert)
      .find({ where: { incidentId: incident.id }, order: { createdAt: 'ASC', id: 'ASC' } });
    const blastRadius = await this.products.namesOf(em, incident.blastRadiusIds);
    const tickets = await this.tickets.linkedToIncident(incident.id, em);
    return {
      ...toIncidentResponse(incident),
      alerts: alerts.map(toAlertResponse),
      blast_radius: blastRadius,
      tickets,
    };
  }
}
