import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { QualityQueries } from './quality.queries';

export interface QualityOverview {
  checks: {
    total: number;
    enabled: number;
    passing: number;
    failing: number;
    erroring: number;
    never_run: number;
  };
  open_alerts_by_severity: Record<string, number>;
  /** Checks whose last run failed or errored, worst severity first. */
  failing_checks: {
    check_id: string;
    name: string;
    product_name: string;
    severity: string;
    status: string;
    last_run_at: string | null;
  }[];
}

export interface IncidentDigestEntry {
  incident_id: string;
  title: string;
  status: string;
  severity: string;
  alert_count: number;
  root_product_name: string | null;
  created_at: string;
  resolved_at: string | null;
}

/** Reads of quality data for other modules (policy rules, reports); no writes. */
@Injectable()
export class QualityReadService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queries: QualityQueries,
  ) {}

  /** Whether any quality check exists in one of these spaces (the onboarding checklist). */
  async anyCheckIn(spaceIds: string[]): Promise<boolean> {
    if (!spaceIds.length) return false;
    return this.queries.anyCheckIn(this.dataSource.manager, spaceIds);
  }

  /** Open or investigating incidents that hold an alert of each product (products without any are left out). */
  async openIncidentCounts(productIds: string[], em: EntityManager): Promise<Map<string, number>> {
    if (!productIds.length) return new Map();
    const rows = await this.queries.openIncidentCounts(em, productIds);
    return new Map(rows.map((r) => [r.product_id, r.open]));
  }

  /** The products that have an alert in the incident. */
  async productIdsOfIncident(incidentId: string, em: EntityManager): Promise<string[]> {
    return this.queries.productIdsOfIncident(em, incidentId);
  }

  async overview(spaceId: string): Promise<QualityOverview> {
    const em = this.dataSource.manager;
    const counts = await this.queries.checkCounts(em, spaceId);
    const alerts = await this.queries.openAlertsBySeverity(em, spaceId);
    const failing = await this.queries.failingChecks(em, spaceId);
    const bySeverity: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0 };
    for (const row of alerts) bySeverity[row.severity] = row.open;
    return {
      checks: counts,
      open_alerts_by_severity: bySeverity,
      failing_checks: failing.map((f) => ({ ...f, last_run_at: f.last_run_at?.toISOString() ?? null })),
    };
  }

  /** Incidents opened since `since`, and every incident still open, newest first. */
  async incidentDigest(spaceId: string, since: Date): Promise<IncidentDigestEntry[]> {
    const rows = await this.queries.incidentDigest(this.dataSource.manager, spaceId, since);
    return rows.map((r) => ({
      ...r,
      created_at: r.created_at.toISOString(),
      resolved_at: r.resolved_at?.toISOString() ?? null,
    }));
  }
}
