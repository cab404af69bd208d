import type { AlertExplainContext } from '../quality/alert-explanations.service';

export const ALERT_EXPLAIN_FEATURE = 'alert_explain';
/** The alert types an explanation is offered for (docs/decisions.md#ai-gateway). */
export const EXPLAINABLE_ALERT_TYPES: readonly string[] = ['anomaly', 'trend'];
/** Every variable holds text that users or monitoring tools wrote, so all are checked for injection. */
export const ALERT_EXPLAIN_UNTRUSTED = ['alert', 'product', 'lineage', 'recent_runs', 'incidents'];

/** The prompt variables of `alert_explain` built from an alert's context (also used by the evals). */
export function alertExplainVariables(
  context: Omit<AlertExplainContext, 'fingerprint' | 'cached'>,
): Record<string, unknown> {
  const { alert } = context;
  return {
    alert: {
      type: alert.alert_type,
      severity: alert.severity,
      status: alert.status,
      message: alert.message,
      metadata: alert.metadata,
      created_at: alert.created_at,
    },
    product: context.product ?? { note: 'The product is not readable.' },
    lineage: {
      upstream: context.lineage.upstream.map((p) => p.name),
      downstream: context.lineage.downstream.map((p) => p.name),
    },
    recent_runs: context.recent_runs,
    incidents: context.incidents.map(({ id: _id, ...incident }) => incident),
  };
}
