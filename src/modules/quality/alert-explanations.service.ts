import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, NotFound } from '../../common/errors/domain-error';
import { SpaceAccessPort } from '../../common/permissions/space-access.port';
import { LineageService } from '../catalog/lineage.service';
import { GovernedProduct, ProductDirectoryService } from '../catalog/product-directory.service';
import { Alert, AlertType } from './entities/alert.entity';
import { QualityQueries } from './quality.queries';

/** The key of alert metadata that holds the cached AI explanation. */
export const EXPLANATION_KEY = 'ai_explanation';
const RECENT_RUNS = 10;
const RECENT_INCIDENTS = 5;
const NEIGHBOURS = 20;

export interface CachedExplanation {
  /** The alert's fingerprint when the explanation was generated (see alertFingerprint). */
  fingerprint: string;
  generated_at: string;
  log_id: string | null;
  hypotheses: unknown;
}

/** What an explanation of an alert may draw on: the alert, its product, lineage, recent runs and incidents. */
export interface AlertExplainContext {
  alert: {
    id: string;
    space_id: string;
    alert_type: AlertType;
    severity: string;
    status: string;
    message: string;
    metadata: Record<string, unknown>;
    created_at: string;
    updated_at: string;
  };
  product: Pick<
    GovernedProduct,
    | 'id'
    | 'name'
    | 'description'
    | 'product_type'
    | 'domain'
    | 'tags'
    | 'criticality'
    | 'sensitivity'
    | 'sla_freshness_minutes'
  > | null;
  lineage: { upstream: { id: string; name: string }[]; downstream: { id: string; name: string }[] };
  recent_runs: {
    check_name: string;
    check_type: string;
    status: string;
    observed_value: number | null;
    message: string | null;
    created_at: string;
  }[];
  incidents: {
    id: string;
    title: string;
    status: string;
    severity: string;
    alert_count: number;
    root_cause: string | null;
    created_at: string;
    resolved_at: string | null;
  }[];
  /** Changes whenever the alert does; the cache is valid while it matches. */
  fingerprint: string;
  cached: CachedExplanation | null;
}

/**
 * What "the alert changed" means for the explanation cache: its status,
 * severity, message, incident, metadata (the cache itself left out) or
 * updated_at differ from when the explanation was generated.
 */
export function alertFingerprint(alert: Alert): string {
  const { [EXPLANATION_KEY]: _cache, ...metadata } = alert.metadata ?? {};
  return createHash('sha256')
    .update(
      JSON.stringify([
        alert.status,
        alert.severity,
        alert.message,
        alert.incidentId,
        alert.updatedAt.toISOString(),
        metadata,
      ]),
    )
    .digest('base64url');
}

/** Reads of an alert's explanation context, and the explanation cache in its metadata, for the AI features. */
@Injectable()
export class AlertExplanationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly access: SpaceAccessPort,
    private readonly products: ProductDirectoryService,
    private readonly lineage: LineageService,
    private readonly queries: QualityQueries,
  ) {}

  /** 404 for a missing alert and for one in a space the caller may not read. */
  async context(actor: Actor, alertId: string): Promise<AlertExplainContext> {
    const alert = await this.dataSource.getRepository(Alert).findOneBy({ id: alertId });
    if (!alert) throw new NotFound('alert', alertId);
    try {
      await this.access.requireRole(actor, alert.spaceId, 'viewer', this.dataSource.manager);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new NotFound('alert', alertId);
      throw error;
    }
    const { [EXPLANATION_KEY]: cached, ...metadata } = alert.metadata ?? {};
    const [product] = await this.products.inSpace(this.dataSource.manager, alert.spaceId, [alert.productId]);
    return {
      alert: {
        id: alert.id,
        space_id: alert.spaceId,
        alert_type: alert.alertType,
        severity: alert.severity,
        status: alert.status,
        message: alert.message,
        metadata,
        created_at: alert.createdAt.toISOString(),
        updated_at: alert.updatedAt.toISOString(),
      },
      product: product
        ? {
            id: product.id,
            name: product.name,
            description: product.description,
            product_type: product.product_type,
            domain: product.domain,
            tags: product.tags,
            criticality: product.criticality,
            sensitivity: product.sensitivity,
            sla_freshness_minutes: product.sla_freshness_minutes,
          }
        : null,
      lineage: await this.lineage.neighbours(alert.productId, NEIGHBOURS, this.dataSource.manager),
      recent_runs: await this.recentRuns(alert.productId),
      incidents: await this.recentIncidents(alert.productId, alert.incidentId),
      fingerprint: alertFingerprint(alert),
      cached: isCachedExplanation(cached) ? cached : null,
    };
  }

  /**
   * Keeps an explanation in the alert's metadata without touching updated_at
   * (which would change the fingerprint and void the cache it just wrote).
   */
  async store(alertId: string, explanation: CachedExplanation): Promise<void> {
    await this.queries.setAlertMetadata(this.dataSource.manager, alertId, EXPLANATION_KEY, explanation);
  }

  private async recentRuns(productId: string): Promise<AlertExplainContext['recent_runs']> {
    const rows = await this.queries.recentRuns(this.dataSource.manager, productId, RECENT_RUNS);
    return rows.map((r) => ({
      ...r,
      observed_value: r.observed_value === null ? null : Number(r.observed_value),
      created_at: r.created_at.toISOString(),
    }));
  }

  private async recentIncidents(
    productId: string,
    incidentId: string,
  ): Promise<AlertExplainContext['incidents']> {
    const rows = await this.queries.recentIncidents(
      this.dataSource.manager,
      productId,
      incidentId,
      RECENT_INCIDENTS,
    );
    return rows.map((r) => ({
      ...r,
      created_at: r.created_at.toISOString(),
      resolved_at: r.resolved_at?.toISOString() ?? null,
    }));
  }
}

function isCachedExplanation(value: unknown): value is CachedExplanation {
  const v = value as Partial<CachedExplanation> | null | undefined;
  return (
    !!v &&
    typeof v.fingerprint === 'string' &&
    typeof v.generated_at === 'string' &&
    Array.isArray(v.hypotheses)
  );
}
