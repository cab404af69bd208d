import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether any quality check exists in one of these spaces (the onboarding checklist). */
  async anyCheckIn(spaceIds: string[]): Promise<boolean> {
    if (!spaceIds.length) return false;
    const [row] = (await this.dataSource.query(
      `SELECT EXISTS (SELECT 1 FROM quality_checks WHERE space_id = ANY($1::uuid[])) AS found`,
      [spaceIds],
    )) as { found: boolean }[];
    return row.found;
  }

  /** Open or investigating incidents that hold an alert of each product (products without any are left out). */
  async openIncidentCounts(productIds: string[], em?: EntityManager): Promise<Map<string, number>> {
    if (!productIds.length) return new Map();
    const rows = (await (em ?? this.dataSource.manager).query(
      `SELECT a.product_id, count(DISTINCT a.incident_id)::int AS open
         FROM unnest($1::uuid[]) AS ids(product_id)
         JOIN quality_alerts a ON a.product_id = ids.product_id
         JOIN quality_incidents i ON i.id = a.incident_id
        WHERE i.status <> 'resolved'
        GROUP BY a.product_id`,
      [productIds],
    )) as { product_id: string; open: number }[];
    return new Map(rows.map((r) => [r.product_id, r.open]));
  }

  /** The products that have an alert in the incident. */
  async productIdsOfIncident(incidentId: string, em?: EntityManager): Promise<string[]> {
    const rows = (await (em ?? this.dataSource.manager).query(
      `SELECT DISTINCT product_id FROM quality_alerts WHERE incident_id = $1`,
      [incidentId],
    )) as { product_id: string }[];
    return rows.map((r) => r.product_id);
  }

  async overview(spaceId: string): Promise<QualityOverview> {
    const [counts] = (await this.dataSource.query(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE is_enabled)::int AS enabled,
              count(*) FILTER (WHERE last_status = 'passed')::int AS passing,
              count(*) FILTER (WHERE last_status = 'failed')::int AS failing,
              count(*) FILTER (WHERE last_status = 'error')::int AS erroring,
              count(*) FILTER (WHERE last_status IS NULL)::int AS never_run
         FROM quality_checks WHERE space_id = $1`,
      [spaceId],
    )) as QualityOverview['checks'][];
    const alerts = (await this.dataSource.query(
      `SELECT severity, count(*)::int AS open FROM quality_alerts
        WHERE space_id = $1 AND status <> 'resolved' GROUP BY severity`,
      [spaceId],
    )) as { severity: string; open: number }[];
    const failing = (await this.dataSource.query(
      `SELECT c.id AS check_id, c.name, p.name AS product_name, c.severity, c.last_status AS status, c.last_run_at
         FROM quality_checks c JOIN products p ON p.id = c.product_id
        WHERE c.space_id = $1 AND c.last_status IN ('failed', 'error')
        ORDER BY array_position(ARRAY['critical','high','medium','low'], c.severity), c.name
        LIMIT 500`,
      [spaceId],
    )) as (Omit<QualityOverview['failing_checks'][number], 'last_run_at'> & { last_run_at: Date | null })[];
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
    const rows = (await this.dataSource.query(
      `SELECT i.id AS incident_id, i.title, i.status, i.severity, i.alert_count, p.name AS root_product_name,
              i.created_at, i.resolved_at
         FROM quality_incidents i LEFT JOIN products p ON p.id = i.root_product_id
        WHERE i.space_id = $1 AND (i.created_at >= $2 OR i.status <> 'resolved')
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT 1000`,
      [spaceId, since],
    )) as (Omit<IncidentDigestEntry, 'created_at' | 'resolved_at'> & {
      created_at: Date;
      resolved_at: Date | null;
    })[];
    return rows.map((r) => ({
      ...r,
      created_at: r.created_at.toISOString(),
      resolved_at: r.resolved_at?.toISOString() ?? null,
    }));
  }
}
