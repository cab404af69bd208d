import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager, QueryDeepPartialEntity } from 'typeorm';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { LineageService } from '../catalog/lineage.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
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
import { QualityQueries } from './quality.queries';

/** Above this many related products, correlation locks the whole space instead. */
const MAX_PRODUCT_LOCKS = 128;

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
 * Opens alerts and correlates them into incidents (docs/decisions.md#alert-correlation), in
 * the caller's transaction. Correlation of one space is serialised with a
 * transaction-scoped advisory lock: the second of two simultaneous alerts
 * waits, then sees the incident the first one opened, so one cluster never
 * gets two incidents.
 */
@Injectable()
export class AlertIngestion {
  constructor(
    private readonly lineage: LineageService,
    private readonly products: ProductDirectoryService,
    private readonly notifications: NotificationsService,
    private readonly outbox: OutboxService,
    private readonly queries: QualityQueries,
  ) {}

  async open(em: EntityManager, input: NewAlert): Promise<IngestedAlert> {
    // Read the lineage before taking any lock: the walk does not depend on incidents.
    const related = await this.lineage.relatedIds(input.productId, em);
    await this.lockCorrelation(em, input.spaceId, related);
    const now = new Date();
    const found = await this.connectedIncident(em, input.spaceId, related, input.productId, now);
    const picked = found && pickIncident([found.candidate], now);
    const incidents = em.getRepository(Incident);

    let incident: Incident;
    let incidentCreated = false;
    let productIsNew = true;
    const changed: string[] = ['alert_count'];
    if (found && picked) {
      incident = found.incident;
      productIsNew = !found.hasProduct;
    } else {
      incident = incidents.create({
        id: randomUUID(),
        spaceId: input.spaceId,
        title: incidentTitle(input.alertType, input.productName),
        status: 'open',
        severity: input.severity,
        alertCount: 0,
        rootCause: null,
        rootProductId: input.productId,
        rootProductPinned: false,
        blastRadiusSnapshot: [],
        blastRadiusIds: [],
        description: input.message,
        downstreamNotifiedAt: null,
        createdAt: now,
        updatedAt: now,
        resolvedAt: null,
      });
      incidentCreated = true;
    }

    const alert = em.getRepository(Alert).create({
      id: randomUUID(),
      spaceId: input.spaceId,
      productId: input.productId,
      checkId: input.checkId ?? null,
      runId: input.runId ?? null,
      incidentId: incident.id,
      alertType: input.alertType,
      severity: input.severity,
      status: 'open',
      message: input.message,
      metadata: input.metadata ?? {},
      acknowledgedAt: null,
      acknowledgedBy: null,
      resolvedAt: null,
      resolvedBy: null,
      createdAt: now,
      updatedAt: now,
    });

    incident.alertCount += 1;
    const previousSeverity = incident.severity;
    const severity = maxSeverity(incident.severity, input.severity);
    if (severity !== incident.severity) {
      incident.severity = severity;
      changed.push('severity');
    }
    // A new incident's root is its one product; a joined one's moves only when a new product joins it.
    if (!incidentCreated && productIsNew && !incident.rootProductPinned) {
      const productIds = await this.queries.productIdsOfIncident(em, incident.id);
      const root = await this.lineage.mostUpstream([...productIds, input.productId], em);
      if (root !== incident.rootProductId) {
        incident.rootProductId = root;
        changed.push('root_product_id');
      }
    }
    // The blast radius is refreshed every time an alert joins (lineage may have changed since).
    if (await this.refreshBlastRadius(em, incident)) changed.push('blast_radius_snapshot');
    incident.updatedAt = now;
    if (incidentCreated) {
      await incidents.insert(incident as QueryDeepPartialEntity<Incident>);
    } else {
      await incidents.update(incident.id, {
        alertCount: incident.alertCount,
        severity: incident.severity,
        rootProductId: incident.rootProductId,
        blastRadiusSnapshot: incident.blastRadiusSnapshot,
        blastRadiusIds: incident.blastRadiusIds,
        updatedAt: now,
      });
    }
    await em.getRepository(Alert).insert(alert as QueryDeepPartialEntity<Alert>);

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
        data: { ...incidentEventData(incident), changed, previous_severity: previousSeverity },
      });
    }
    // The product's owners and stewards hear once per incident: when their product first shows up in it.
    if (productIsNew) await this.notifyOwners(em, alert, incident, input.productName);
    // Last: the counter's shard row stays locked from here to the commit only.
    if (incidentCreated) await this.queries.moveIncidentCount(em, input.spaceId, null, 'open');
    return { alert, incident, incidentCreated };
  }

  /**
   * Recomputes the names (and ids) of every product downstream of the root,
   * the root excluded. Answers whether the snapshot changed.
   */
  async refreshBlastRadius(em: EntityManager, incident: Incident): Promise<boolean> {
    const products = incident.rootProductId
      ? await this.lineage.downstreamProducts(incident.rootProductId, em)
      : [];
    const names = products.map((p) => p.name);
    const changed = JSON.stringify(names) !== JSON.stringify(incident.blastRadiusSnapshot ?? []);
    incident.blastRadiusSnapshot = names;
    incident.blastRadiusIds = products.map((p) => p.id);
    return changed;
  }

  /**
   * Serialises correlation among alerts that could correlate with each other:
   * two alerts can only join one incident when their products are linked by
   * lineage, so each takes an exclusive advisory lock on every product of its
   * related set (sorted, so no deadlock), under a shared lock of the space.
   * Alerts on unrelated products then correlate in parallel. A related set
   * too large to lock product by product takes the space lock exclusively.
   */
  private async lockCorrelation(em: EntityManager, spaceId: string, related: string[]): Promise<void> {
    const spaceKey = `quality-correlation-space:${spaceId}`;
    if (related.length > MAX_PRODUCT_LOCKS) {
      await this.queries.lockCorrelationSpace(em, spaceKey);
      return;
    }
    await this.queries.lockCorrelationProducts(em, spaceKey, related);
  }

  /**
   * The most recently opened incident of the space that is open or
   * investigating, opened within the window, with an alert on a product of
   * the related set, locked; and whether it already has an alert on the new
   * alert's product. FOR UPDATE rechecks the row, so one resolved meanwhile
   * is passed over.
   */
  private async connectedIncident(
    em: EntityManager,
    spaceId: string,
    relatedProductIds: string[],
    productId: string,
    now: Date,
  ): Promise<{ incident: Incident; candidate: CandidateIncident; hasProduct: boolean } | null> {
    // Driven from the alerts on related products since the window opened (an incident opened within the
    // window only has alerts from after that), so the cost does not grow with the space's open incidents.
    const since = new Date(now.getTime() - CORRELATION_WINDOW_MS);
    const rows = await this.queries.connectedIncident(em, spaceId, relatedProductIds, productId, since);
    if (!rows.length) return null;
    const entity = await em.getRepository(Incident).findOneByOrFail({ id: rows[0].id });
    return {
      incident: entity,
      candidate: { id: entity.id, status: entity.status, createdAt: entity.createdAt },
      hasProduct: rows[0].has_product,
    };
  }

  private async notifyOwners(
    em: EntityManager,
    alert: Alert,
    incident: Incident,
    productName: string,
  ): Promise<void> {
    const [governance] = await this.products.ownersAndStewardsOf(em, [alert.productId]);
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
