/**
 * The dense rules of alerts and incidents (docs/decisions.md#alert-correlation), free of SQL
 * so they can be unit tested. The lineage side (which products are connected)
 * is answered by QualityQueries; these functions decide with its answers.
 */
import type { AlertStatus, AlertType } from './entities/alert.entity';
import type { CheckType, Severity } from './entities/check.entity';
import type { IncidentStatus } from './entities/incident.entity';

/** An alert joins an incident opened at most this long ago. */
export const CORRELATION_WINDOW_MS = 6 * 3600_000;

const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };

/** The higher of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return SEVERITY_RANK[b] > SEVERITY_RANK[a] ? b : a;
}

/** The highest severity of a non-empty list. */
export function highestSeverity(severities: Severity[]): Severity {
  return severities.reduce(maxSeverity);
}

export interface CandidateIncident {
  id: string;
  status: IncidentStatus;
  createdAt: Date;
}

/** Whether an incident may take a new alert at `now`: open or investigating, opened within the window. */
export function acceptsAlerts(incident: CandidateIncident, now: Date): boolean {
  return (
    (incident.status === 'open' || incident.status === 'investigating') &&
    incident.createdAt.getTime() >= now.getTime() - CORRELATION_WINDOW_MS
  );
}

/**
 * The incident a new alert joins, among incidents whose products are
 * connected to the alert's product by lineage (or equal to it): the most
 * recently opened one that still accepts alerts; null means "open a new one".
 */
export function pickIncident(connected: CandidateIncident[], now: Date): CandidateIncident | null {
  let best: CandidateIncident | null = null;
  for (const incident of connected) {
    if (!acceptsAlerts(incident, now)) continue;
    if (
      !best ||
      incident.createdAt.getTime() > best.createdAt.getTime() ||
      (incident.createdAt.getTime() === best.createdAt.getTime() && incident.id > best.id)
    ) {
      best = incident;
    }
  }
  return best;
}

const ALERT_TYPE_LABELS: Record<AlertType, string> = {
  quality_check_failed: 'Quality check failed',
  freshness_breach: 'Freshness breach',
  schema_change: 'Schema change',
  anomaly: 'Anomaly',
  trend: 'Trend',
  contract_violation: 'Contract violation',
};

/** A new incident is titled after its first alert's type and product. */
export function incidentTitle(alertType: AlertType, productName: string): string {
  return `${ALERT_TYPE_LABELS[alertType]} on ${productName}`;
}

/** The alert a failed run of a check opens. */
export function alertTypeForCheck(checkType: CheckType): AlertType {
  if (checkType === 'freshness') return 'freshness_breach';
  if (checkType === 'schema') return 'schema_change';
  return 'quality_check_failed';
}

/**
 * An incident status move: every move is allowed (open and investigating
 * back and forth, anything to resolved, and reopening a resolved incident).
 * Answers what happens to `resolved_at`.
 */
export function incidentMove(
  from: IncidentStatus,
  to: IncidentStatus,
): 'none' | 'set_resolved' | 'clear_resolved' {
  if (from === to) return 'none';
  if (to === 'resolved') return 'set_resolved';
  if (from === 'resolved') return 'clear_resolved';
  return 'none';
}

/** The status an alert moves to, or null when the move is forbidden (409). */
export function alertMove(from: AlertStatus, action: 'acknowledge' | 'resolve'): AlertStatus | null {
  if (action === 'acknowledge') return from === 'open' ? 'acknowledged' : null;
  return from === 'resolved' ? null : 'resolved';
}
