import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { IncidentStatus } from './entities/incident.entity';

/** Rows per (space, status): new incidents update one at random, so they rarely wait on each other. */
export const COUNT_SHARDS = 16;

export interface CheckCountsRow {
  total: number;
  enabled: number;
  passing: number;
  failing: number;
  erroring: number;
  never_run: number;
}

export interface FailingCheckRow {
  check_id: string;
  name: string;
  product_name: string;
  severity: string;
  status: string;
  last_run_at: Date | null;
}

export interface IncidentDigestRow {
  incident_id: string;
  title: string;
  status: string;
  severity: string;
  alert_count: number;
  root_product_name: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

export interface RecentRunRow {
  check_name: string;
  check_type: string;
  status: string;
  observed_value: number | null;
  message: string | null;
  created_at: Date;
}

export interface RecentIncidentRow {
  id: string;
  title: string;
  status: string;
  severity: string;
  alert_count: number;
  root_cause: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

/**
 * Quality's raw SQL. What the repository API cannot say in one statement:
 * advisory locks and FOR UPDATE [SKIP LOCKED] claims (alert correlation, the
 * check sweep), sharded counter upserts, jsonb_set on an alert's metadata
 * without touching updated_at, LATERAL and FILTER aggregates for overviews and
 * AI explanation context. Indexes: quality_alerts_incident_product_idx
 * (product_id, incident_id) for open incident counts per product;
 * quality_alerts_incident_idx (incident_id, …) for an incident's products;
 * quality_alerts_product_created_idx (product_id, created_at, incident_id) for
 * correlation candidates and a product's recent incidents, then the
 * quality_incidents primary key; quality_checks_due_idx (next_run_at) for the
 * sweep; quality_checks_space_idx and quality_checks_product_idx for the
 * overview and recent runs, with quality_check_runs_check_idx (check_id,
 * created_at); quality_alerts_space_status_idx for open alerts by severity;
 * quality_incidents_space_created_idx for the digest; the
 * quality_incident_counts primary key (space_id, status, shard) for counters;
 * primary keys for single-row updates. Advisory locks use no index.
 */
@Injectable()
export class QualityQueries {
  // Incident counters (quality_incident_counts), always inside the caller's transaction.

  /** One incident opened, or moved from one status to another. Rows are locked in status order (no deadlock). */
  async moveIncidentCount(
    em: EntityManager,
    spaceId: string,
    from: IncidentStatus | null,
    to: IncidentStatus,
  ): Promise<void> {
    if (from === to) return;
    const deltas = new Map<IncidentStatus, number>([[to, 1]]);
    if (from) deltas.set(from, -1);
    // One statement for both statuses, one random shard; rows taken in status order.
    await em.query(
      `INSERT INTO quality_incident_counts (space_id, status, shard, total)
       SELECT $1, d.status, $2, d.delta FROM unnest($3::text[], $4::int[]) AS d(status, delta) ORDER BY d.status
       ON CONFLICT (space_id, status, shard) DO UPDATE SET total = quality_incident_counts.total + EXCLUDED.total`,
      [spaceId, Math.floor(Math.random() * COUNT_SHARDS), [...deltas.keys()], [...deltas.values()]],
    );
  }

  /** Incidents of the space, in one status or in all. */
  async incidentTotal(
    em: EntityManager,
    spaceId: string,
    status: IncidentStatus | undefined,
  ): Promise<number> {
    const rows = (await em.query(
      `SELECT COALESCE(sum(total), 0)::int AS total FROM quality_incident_counts
        WHERE space_id = $1 AND ($2::text IS NULL OR status = $2)`,
      [spaceId, status ?? null],
    )) as { total: number }[];
    return rows[0].total;
  }

  // Incidents and alerts.

  /** The products that have an alert in the incident. */
  async productIdsOfIncident(em: EntityManager, incidentId: string): Promise<string[]> {
    const rows = (await em.query(`SELECT DISTINCT product_id FROM quality_alerts WHERE incident_id = $1`, [
      incidentId,
    ])) as { product_id: string }[];
    return rows.map((r) => r.product_id);
  }

  /** Open or investigating incidents that hold an alert of each product (products without any are left out). */
  async openIncidentCounts(
    em: EntityManager,
    productIds: string[],
  ): Promise<{ product_id: string; open: number }[]> {
    return (await em.query(
      `SELECT a.product_id, count(DISTINCT a.incident_id)::int AS open
         FROM unnest($1::uuid[]) AS ids(product_id)
         JOIN quality_alerts a ON a.product_id = ids.product_id
         JOIN quality_incidents i ON i.id = a.incident_id
        WHERE i.status <> 'resolved'
        GROUP BY a.product_id`,
      [productIds],
    )) as { product_id: string; open: number }[];
  }

  /** Takes the space's correlation lock exclusively, until the transaction ends. */
  async lockCorrelationSpace(em: EntityManager, spaceKey: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [spaceKey]);
  }

  /** Serialises find-or-create of the pushed (custom) check of one name on one product, until the transaction ends. */
  async lockPushedCheckName(em: EntityManager, productId: string, name: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `quality-pushed-check:${productId}:${name}`,
    ]);
  }

  /**
   * One statement: the shared space lock, then the product locks in key order. (Either order is free of
   * deadlock: a holder of the exclusive space lock takes no product lock.)
   */
  async lockCorrelationProducts(em: EntityManager, spaceKey: string, productIds: string[]): Promise<void> {
    await em.query(
      `SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0)),
              (SELECT count(pg_advisory_xact_lock(k)) FROM (
                 SELECT DISTINCT hashtextextended('quality-correlation:' || p::text, 0) AS k
                   FROM unnest($2::uuid[]) AS p ORDER BY 1
               ) keys)`,
      [spaceKey, productIds],
    );
  }

  /**
   * The most recently opened open or investigating incident of the space,
   * opened since `since`, with an alert on one of the products, locked (FOR
   * UPDATE rechecks the row); and whether it has an alert on `productId`.
   * Driven from the alerts on those products since `since` (an incident opened
   * since then only has alerts from after that), so the cost does not grow
   * with the space's open incidents.
   */
  async connectedIncident(
    em: EntityManager,
    spaceId: string,
    relatedProductIds: string[],
    productId: string,
    since: Date,
  ): Promise<{ id: string; has_product: boolean }[]> {
    return (await em.query(
      `WITH hits AS MATERIALIZED (
         SELECT DISTINCT a.incident_id FROM quality_alerts a
          WHERE a.product_id = ANY($1::uuid[]) AND a.created_at >= $2
       )
       SELECT i.id, EXISTS (SELECT 1 FROM quality_alerts x WHERE x.incident_id = i.id AND x.product_id = $4) AS has_product
         FROM hits h JOIN quality_incidents i ON i.id = h.incident_id
        WHERE i.space_id = $3 AND i.status IN ('open', 'investigating') AND i.created_at >= $2
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT 1
        FOR UPDATE OF i`,
      [relatedProductIds, since, spaceId, productId],
    )) as { id: string; has_product: boolean }[];
  }

  /** Sets one key of the alert's metadata, leaving updated_at alone. */
  async setAlertMetadata(em: EntityManager, alertId: string, key: string, value: unknown): Promise<void> {
    await em.query(
      `UPDATE quality_alerts SET metadata = jsonb_set(metadata, $2::text[], $3::jsonb) WHERE id = $1`,
      [alertId, [key], JSON.stringify(value)],
    );
  }

  /** The latest runs of the product's checks, newest first. */
  async recentRuns(em: EntityManager, productId: string, limit: number): Promise<RecentRunRow[]> {
    return (await em.query(
      `SELECT c.name AS check_name, c.check_type, r.status, r.observed_value, r.message, r.created_at
         FROM quality_checks c
         CROSS JOIN LATERAL (
           SELECT status, observed_value, message, created_at FROM quality_check_runs
            WHERE check_id = c.id ORDER BY created_at DESC LIMIT $2
         ) r
        WHERE c.product_id = $1
        ORDER BY r.created_at DESC
        LIMIT $2`,
      [productId, limit],
    )) as RecentRunRow[];
  }

  /** The incident, then the latest other incidents with an alert on the product. */
  async recentIncidents(
    em: EntityManager,
    productId: string,
    incidentId: string,
    limit: number,
  ): Promise<RecentIncidentRow[]> {
    return (await em.query(
      `SELECT i.id, i.title, i.status, i.severity, i.alert_count, i.root_cause, i.created_at, i.resolved_at
         FROM quality_incidents i
        WHERE i.id = $2
           OR i.id IN (SELECT incident_id FROM quality_alerts WHERE product_id = $1 ORDER BY created_at DESC LIMIT 50)
        ORDER BY (i.id = $2) DESC, i.created_at DESC
        LIMIT $3`,
      [productId, incidentId, limit],
    )) as RecentIncidentRow[];
  }

  // Checks.

  /** Claims up to `limit` due scheduled checks (locked, skipping those another worker holds). */
  async claimDueChecks(
    em: EntityManager,
    limit: number,
  ): Promise<{ id: string; schedule_cron: string; next_run_at: Date }[]> {
    return (await em.query(
      `SELECT id, schedule_cron, next_run_at FROM quality_checks
            WHERE next_run_at <= now() AND is_enabled AND schedule_cron IS NOT NULL
            ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    )) as { id: string; schedule_cron: string; next_run_at: Date }[];
  }

  async setNextRun(em: EntityManager, checkId: string, nextRunAt: Date): Promise<void> {
    await em.query(`UPDATE quality_checks SET next_run_at = $2 WHERE id = $1`, [checkId, nextRunAt]);
  }

  // Reads for other modules (onboarding, reports).

  /** Whether any quality check exists in one of these spaces. */
  async anyCheckIn(em: EntityManager, spaceIds: string[]): Promise<boolean> {
    const [row] = (await em.query(
      `SELECT EXISTS (SELECT 1 FROM quality_checks WHERE space_id = ANY($1::uuid[])) AS found`,
      [spaceIds],
    )) as { found: boolean }[];
    return row.found;
  }

  async checkCounts(em: EntityManager, spaceId: string): Promise<CheckCountsRow> {
    const [counts] = (await em.query(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE is_enabled)::int AS enabled,
              count(*) FILTER (WHERE last_status = 'passed')::int AS passing,
              count(*) FILTER (WHERE last_status = 'failed')::int AS failing,
              count(*) FILTER (WHERE last_status = 'error')::int AS erroring,
              count(*) FILTER (WHERE last_status IS NULL)::int AS never_run
         FROM quality_checks WHERE space_id = $1`,
      [spaceId],
    )) as CheckCountsRow[];
    return counts;
  }

  async openAlertsBySeverity(
    em: EntityManager,
    spaceId: string,
  ): Promise<{ severity: string; open: number }[]> {
    return (await em.query(
      `SELECT severity, count(*)::int AS open FROM quality_alerts
        WHERE space_id = $1 AND status <> 'resolved' GROUP BY severity`,
      [spaceId],
    )) as { severity: string; open: number }[];
  }

  /** Checks whose last run failed or errored, worst severity first (at most 500). */
  async failingChecks(em: EntityManager, spaceId: string): Promise<FailingCheckRow[]> {
    return (await em.query(
      `SELECT c.id AS check_id, c.name, p.name AS product_name, c.severity, c.last_status AS status, c.last_run_at
         FROM quality_checks c JOIN products p ON p.id = c.product_id
        WHERE c.space_id = $1 AND c.last_status IN ('failed', 'error')
        ORDER BY array_position(ARRAY['critical','high','medium','low'], c.severity), c.name
        LIMIT 500`,
      [spaceId],
    )) as FailingCheckRow[];
  }

  /** Incidents opened since `since`, and every incident still open, newest first (at most 1,000). */
  async incidentDigest(em: EntityManager, spaceId: string, since: Date): Promise<IncidentDigestRow[]> {
    return (await em.query(
      `SELECT i.id AS incident_id, i.title, i.status, i.severity, i.alert_count, p.name AS root_product_name,
              i.created_at, i.resolved_at
         FROM quality_incidents i LEFT JOIN products p ON p.id = i.root_product_id
        WHERE i.space_id = $1 AND (i.created_at >= $2 OR i.status <> 'resolved')
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT 1000`,
      [spaceId, since],
    )) as IncidentDigestRow[];
  }
}
