import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { jsonValue } from '../../database/json-column';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { LineageService } from '../catalog/lineage.service';
import { ProductsService } from '../catalog/products.service';
import { NotificationsService } from '../notifications/notifications.service';
import {
  CandidateIncident,
  CORRELATION_WINDOW_MS,
  incidentTitle,
  maxSeverity,
  pickIncident,
} from './alert-correlation';
import { Alert, AlertType } from './entities/alert.entity';
import type { Severity } from './entities/check.entity';
import { Incident } from './entities/incident.entity';
import { alertEventData, incidentEventData } from './quality.mapper';

export interface NewAlert {
  spaceId: string;
  productId: string;
  productName: string;
  alertType: AlertType;
  severity: Severity;
  message: string;
  metadata?: Record<string, unknown>;
  checkId?: string | null;
  runId?: string | null;
  actorId: string | null;
}

export interface IngestedAlert {
  alert: Alert;
  incident: Incident;
  incidentCreated: boolean;
}

/**
 * Opens alerts and correlates them into incidents (decisions section 5), in
 * the caller's transaction. Correlation of one space is serialised with a
 * transaction-scoped advisory lock: the second of two simultaneous alerts
 * waits, then sees the incident the first one opened, so one cluster never
 * gets two incidents.
 */
@Injectable()
export class AlertIngestion {
  constructor(
    private readonly lineage: LineageService,
    private readonly products: ProductsService,
    private readonly notifications: NotificationsService,
    private readonly outbox: OutboxService,
  ) {}

  async open(em: EntityManager, input: NewAlert): Promise<IngestedAlert> {
    // Read the lineage before taking the lock: the walk is the costly part, and it does not depend on incidents.
    const related = await this.lineage.relatedIds(input.productId, em);
    await em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`quality-correlation:${input.spaceId}`]);
    const [{ now }] = (await em.query(`SELECT clock_timestamp() AS now`)) as { now: Date }[];
    const candidates = await this.connectedIncidents(em, input.spaceId, related, now);
    const picked = pickIncident(candidates, now);

    let incident: Incident;
    let incidentCreated = false;
    let productIsNew: boolean;
    if (picked) {
      incident = await em
        .getRepository(Incident)
        .findOneOrFail({ where: { id: picked.id }, lock: { mode: 'pessimistic_write' } });
      productIsNew = !(await em
        .getRepository(Alert)
        .existsBy({ incidentId: incident.id, productId: input.productId }));
    } else {
      incident = em.getRepository(Incident).create({
        spaceId: input.spaceId,
        title: incidentTitle(input.alertType, input.productName),
        status: 'open',
        severity: input.severity,
        alertCount: 0,
        rootProductId: input.productId,
        description: input.message,
        createdAt: now,
      });
      incident = await em.getRepository(Incident).save(incident);
      incidentCreated = true;
      productIsNew = true;
    }

    const alertRepo = em.getRepository(Alert);
    const alert = await alertRepo.save(
      alertRepo.create({
        spaceId: input.spaceId,
        productId: input.productId,
        checkId: input.checkId ?? null,
        runId: input.runId ?? null,
        incidentId: incident.id,
        alertType: input.alertType,
        severity: input.severity,
        status: 'open',
        message: input.message,
        metadata: jsonValue(input.metadata ?? {}) as Record<string, unknown>,
        createdAt: now,
      }),
    );

    const changed: string[] = ['alert_count'];
    incident.alertCount += 1;
    const severity = maxSeverity(incident.severity, input.severity);
    if (severity !== incident.severity) {
      incident.severity = severity;
      changed.push('severity');
    }
    if (!incident.rootProductPinned && (incidentCreated || productIsNew)) {
      const productIds = (
        (await em.query(`SELECT DISTINCT product_id FROM quality_alerts WHERE incident_id = $1`, [
          incident.id,
        ])) as { product_id: string }[]
      ).map((r) => r.product_id);
      const root = await this.lineage.mostUpstream(productIds, em);
      if (root !== incident.rootProductId) {
        incident.rootProductId = root;
        changed.push('root_product_id');
      }
    }
    // The blast radius is refreshed every time an alert joins (lineage may have changed since).
    if (await this.refreshBlastRadius(em, incident)) changed.push('blast_radius_snapshot');
    incident.updatedAt = now;
    await em.getRepository(Incident).save(incident);

    await this.outbox.append(em, {
      type: 'alert.created',
      spaceId: input.spaceId,
      actorId: input.actorId,
      data: alertEventData(alert),
    });
    if (incidentCreated) {
      await this.outbox.append(em, {
        type: 'incident.created',
        spaceId: input.spaceId,
        actorId: input.actorId,
        data: incidentEventData(incident),
      });
    } else {
      await this.outbox.append(em, {
        type: 'incident.updated',
        spaceId: input.spaceId,
        actorId: input.actorId,
        data: { ...incidentEventData(incident), changed },
      });
    }
    // The product's owners and stewards hear once per incident: when their product first shows up in it.
    if (productIsNew) await this.notifyOwners(em, alert, incident, input.productName);
    return { alert, incident, incidentCreated };
  }

  /**
   * Recomputes the names (and ids) of every product downstream of the root,
   * the root excluded. Answers whether the snapshot changed.
   */
  async refreshBlastRadius(em: EntityManager, incident: Incident): Promise<boolean> {
    const ids = incident.rootProductId ? await this.lineage.downstreamOf(incident.rootProductId, em) : [];
    const products = await this.products.namesOf(ids, em);
    const names = products.map((p) => p.name);
    const changed = JSON.stringify(names) !== JSON.stringify(incident.blastRadiusSnapshot ?? []);
    incident.blastRadiusSnapshot = names;
    incident.blastRadiusIds = products.map((p) => p.id);
    return changed;
  }

  /** Open or investigating incidents of the space, opened within the window, with an alert on a related product. */
  private async connectedIncidents(
    em: EntityManager,
    spaceId: string,
    relatedProductIds: string[],
    now: Date,
  ): Promise<CandidateIncident[]> {
    const rows = (await em.query(
      `SELECT i.id, i.status, i.created_at
         FROM quality_incidents i
        WHERE i.id IN (SELECT a.incident_id FROM quality_alerts a WHERE a.product_id = ANY($3::uuid[]))
          AND i.space_id = $1 AND i.status IN ('open', 'investigating') AND i.created_at >= $2
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT 20`,
      [spaceId, new Date(now.getTime() - CORRELATION_WINDOW_MS), relatedProductIds],
    )) as { id: string; status: CandidateIncident['status']; created_at: Date }[];
    return rows.map((r) => ({ id: r.id, status: r.status, createdAt: r.created_at }));
  }

  private async notifyOwners(
    em: EntityManager,
    alert: Alert,
    incident: Incident,
    productName: string,
  ): Promise<void> {
    const [governance] = await this.products.ownersAndStewardsOf([alert.productId], em);
    if (!governance) return;
    await this.notifications.notify(em, {
      recipients: [...governance.ownerIds, ...governance.stewardIds],
      type: 'quality_alert',
      title: `${alert.severity} alert on ${productName}`,
      message: `${alert.message} (incident: ${incident.title})`,
      data: {
        incident_id: incident.id,
        alert_id: alert.id,
        product_id: alert.productId,
        severity: alert.severity,
        space_id: alert.spaceId,
      },
    });
  }
}
