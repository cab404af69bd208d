import type { AlertEventData, CheckRunEventData, IncidentEventData } from '../../platform/outbox/event-map';
import type { AlertResponse, CheckResponse, CheckRunResponse, IncidentResponse } from './dto/quality.dto';
import type { Alert } from './entities/alert.entity';
import type { CheckRun } from './entities/check-run.entity';
import type { Check } from './entities/check.entity';
import type { Incident } from './entities/incident.entity';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function toCheckResponse(check: Check): CheckResponse {
  return {
    id: check.id,
    space_id: check.spaceId,
    product_id: check.productId,
    connector_id: check.connectorId,
    name: check.name,
    description: check.description,
    check_type: check.checkType,
    severity: check.severity,
    config: check.config,
    schedule_cron: check.scheduleCron,
    is_enabled: check.isEnabled,
    next_run_at: iso(check.nextRunAt),
    last_run_at: iso(check.lastRunAt),
    last_status: check.lastStatus,
    created_at: check.createdAt.toISOString(),
    updated_at: check.updatedAt.toISOString(),
  };
}

export function toRunResponse(run: CheckRun): CheckRunResponse {
  return {
    run_id: run.id,
    check_id: run.checkId,
    status: run.status,
    observed_value: run.observedValue,
    message: run.message,
    alert_id: run.alertId,
    source: run.source,
    duration_ms: run.durationMs,
    created_at: run.createdAt.toISOString(),
  };
}

export function toAlertResponse(alert: Alert): AlertResponse {
  return {
    id: alert.id,
    space_id: alert.spaceId,
    alert_type: alert.alertType,
    severity: alert.severity,
    status: alert.status,
    product_id: alert.productId,
    check_id: alert.checkId,
    run_id: alert.runId,
    message: alert.message,
    metadata: alert.metadata,
    incident_id: alert.incidentId,
    acknowledged_at: iso(alert.acknowledgedAt),
    resolved_at: iso(alert.resolvedAt),
    created_at: alert.createdAt.toISOString(),
    updated_at: alert.updatedAt.toISOString(),
  };
}

export function toIncidentResponse(incident: Incident): IncidentResponse {
  return {
    id: incident.id,
    space_id: incident.spaceId,
    title: incident.title,
    status: incident.status,
    severity: incident.severity,
    alert_count: incident.alertCount,
    root_cause: incident.rootCause,
    root_product_id: incident.rootProductId,
    blast_radius_snapshot: incident.blastRadiusSnapshot,
    description: incident.description,
    created_at: incident.createdAt.toISOString(),
    updated_at: incident.updatedAt.toISOString(),
    resolved_at: iso(incident.resolvedAt),
  };
}

export function alertEventData(alert: Alert): AlertEventData {
  return {
    alert_id: alert.id,
    space_id: alert.spaceId,
    product_id: alert.productId,
    alert_type: alert.alertType,
    severity: alert.severity,
    status: alert.status,
    check_id: alert.checkId,
    incident_id: alert.incidentId,
    message: alert.message,
  };
}

export function incidentEventData(incident: Incident): IncidentEventData {
  return {
    incident_id: incident.id,
    space_id: incident.spaceId,
    title: incident.title,
    status: incident.status,
    severity: incident.severity,
    alert_count: incident.alertCount,
    root_product_id: incident.rootProductId,
    blast_radius_snapshot: incident.blastRadiusSnapshot,
  };
}

export function runEventData(
  run: CheckRun,
  check: Pick<Check, 'productId' | 'checkType' | 'name'>,
): CheckRunEventData {
  return {
    check_id: run.checkId,
    run_id: run.id,
    space_id: run.spaceId,
    product_id: check.productId,
    check_type: check.checkType,
    name: check.name,
    status: run.status,
    observed_value: run.observedValue,
    message: run.message,
    alert_id: run.alertId,
  };
}
