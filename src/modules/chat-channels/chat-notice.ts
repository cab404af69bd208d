import type { DispatchedEvent } from '../../platform/outbox/outbox.dispatcher';
import type { DomainEventMap } from '../../platform/outbox/event-map';

/** What a chat channel may subscribe to (the OpenAPI enum `ChatEventType`). */
export const CHAT_EVENT_TYPES = [
  'incident.opened',
  'incident.escalated',
  'incident.resolved',
  'alert.raised',
  'policy.violated',
  'access_request.submitted',
  'access_request.approved',
  'access_request.rejected',
  'webhook.failing',
  'connector.failing',
  'lineage.run_failed',
] as const;
export type ChatEventType = (typeof CHAT_EVENT_TYPES)[number];

export const CHAT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type ChatSeverity = (typeof CHAT_SEVERITIES)[number];

const RANK: Record<string, number> = { low: 1, medium: 2, high: 3, critical: 4 };

export const severityRank = (severity: string | null): number => (severity ? (RANK[severity] ?? 0) : 0);

/** Events without a severity always pass; the others from `min` up. */
export function passesMinSeverity(severity: string | null, min: string): boolean {
  return severity === null || severityRank(severity) >= severityRank(min);
}

/** At most this many product names travel in one message. */
export const MAX_PRODUCTS = 10;

/**
 * A message before any platform's format: plain text everywhere (each
 * formatter escapes it for its platform), and an absolute link.
 */
export interface ChatNotice {
  event_type: ChatEventType;
  title: string;
  severity: ChatSeverity | null;
  space_name: string;
  summary: string;
  /** The names of the affected products (at most MAX_PRODUCTS). */
  products: string[];
  link: string;
  /** How many more events were folded into this message (the rest of an incident's minute). */
  folded: number;
  occurred_at: string;
}

/** A domain event read as a chat event: its type, its incident (the coalescing key), what it says. */
export interface ChatEventDraft {
  type: ChatEventType;
  incidentId: string | null;
  severity: ChatSeverity | null;
  title: string;
  summary: string;
  /** Product ids to name (looked up), besides the names the event carries. */
  productIds: string[];
  productNames: string[];
  /** Path under `/api/v1.0/`, with `{slug}` for the space's slug. */
  path: string;
}

const asSeverity = (value: string | null | undefined): ChatSeverity | null =>
  value && value in RANK ? (value as ChatSeverity) : null;

type Handled = {
  [K in keyof DomainEventMap]?: (data: DomainEventMap[K]) => ChatEventDraft | null;
};

const incidentPath = (id: string) => `spaces/{slug}/incidents/${id}`;

const DRAFTS: Handled = {
  'incident.created': (d) => ({
    type: 'incident.opened',
    incidentId: d.incident_id,
    severity: asSeverity(d.severity),
    title: `Incident opened: ${d.title}`,
    summary: `A ${d.severity} incident was opened.`,
    productIds: d.root_product_id ? [d.root_product_id] : [],
    productNames: d.blast_radius_snapshot,
    path: incidentPath(d.incident_id),
  }),
  // An escalation is a raise of the incident's severity, by an alert joining it or by hand (docs/decisions.md#chat-events).
  'incident.updated': (d) =>
    d.changed.includes('severity') && severityRank(d.severity) > severityRank(d.previous_severity)
      ? {
          type: 'incident.escalated',
          incidentId: d.incident_id,
          severity: asSeverity(d.severity),
          title: `Incident escalated: ${d.title}`,
          summary: `Severity raised from ${d.previous_severity} to ${d.severity}; ${d.alert_count} alert(s).`,
          productIds: d.root_product_id ? [d.root_product_id] : [],
          productNames: d.blast_radius_snapshot,
          path: incidentPath(d.incident_id),
        }
      : null,
  'incident.resolved': (d) => ({
    type: 'incident.resolved',
    // Not coalesced: the news that ends an incident goes out on its own.
    incidentId: null,
    severity: asSeverity(d.severity),
    title: `Incident resolved: ${d.title}`,
    summary: `The incident was resolved after ${d.alert_count} alert(s).`,
    productIds: d.root_product_id ? [d.root_product_id] : [],
    productNames: [],
    path: incidentPath(d.incident_id),
  }),
  'alert.created': (d) => ({
    type: 'alert.raised',
    incidentId: d.incident_id,
    severity: asSeverity(d.severity),
    title: `Alert raised: ${d.alert_type}`,
    summary: d.message,
    productIds: [d.product_id],
    productNames: [],
    path: incidentPath(d.incident_id),
  }),
  'policy.violated': (d) => ({
    type: 'policy.violated',
    incidentId: null,
    severity: asSeverity(d.severity),
    title: `Policy violated: ${d.policy_name}`,
    summary: d.message,
    productIds: [],
    productNames: [d.product_name],
    path: `spaces/{slug}/policies/${d.policy_id}`,
  }),
  'access_request.submitted': (d) => ({
    type: 'access_request.submitted',
    incidentId: null,
    severity: null,
    title: `Access requested to ${d.product_name}`,
    summary: `A member asked for ${d.access_level} access.`,
    productIds: [],
    productNames: [d.product_name],
    path: `catalog/spaces/{slug}/products/${d.product_id}`,
  }),
  'access_request.approved': (d) => ({
    type: 'access_request.approved',
    incidentId: null,
    severity: null,
    title: `Access to ${d.product_name} approved`,
    summary: `A request for ${d.access_level} access was approved${d.expires_at ? ` until ${d.expires_at}` : ''}.`,
    productIds: [],
    productNames: [d.product_name],
    path: `catalog/spaces/{slug}/products/${d.product_id}`,
  }),
  'access_request.rejected': (d) => ({
    type: 'access_request.rejected',
    incidentId: null,
    severity: null,
    title: `Access to ${d.product_name} rejected`,
    summary: `A request for ${d.access_level} access was rejected: ${d.reason}`,
    productIds: [],
    productNames: [d.product_name],
    path: `catalog/spaces/{slug}/products/${d.product_id}`,
  }),
  'webhook.failing': (d) => ({
    type: 'webhook.failing',
    incidentId: null,
    severity: null,
    title:
      d.state === 'disabled' ? `Webhook to ${d.url_host} disabled` : `Webhook to ${d.url_host} is failing`,
    summary: d.reason,
    productIds: [],
    productNames: [],
    path: `spaces/{slug}/webhooks/${d.webhook_id}/deliveries`,
  }),
  'connector.failing': (d) => ({
    type: 'connector.failing',
    incidentId: null,
    severity: null,
    title: `Connector ${d.name} is failing`,
    summary: `Its ${d.operation} failed: ${d.error}`,
    productIds: [],
    productNames: [],
    path: `connectors/spaces/{slug}/${d.connector_id}`,
  }),
  'lineage.run_failed': (d) => ({
    type: 'lineage.run_failed',
    incidentId: null,
    severity: null,
    title: `Run ${d.state === 'ABORT' ? 'aborted' : 'failed'}: ${d.job_namespace} / ${d.job_name}`,
    summary: d.error_message ?? `The OpenLineage run ${d.run_id} ended in ${d.state}.`,
    productIds: d.output_product_ids,
    productNames: [],
    path: `spaces/{slug}/lineage/jobs/${d.job_id}/runs`,
  }),
};

/** The chat event a domain event is, or null for one no chat channel hears of. */
export function draftOf(event: Pick<DispatchedEvent, 'type' | 'data'>): ChatEventDraft | null {
  const draft = DRAFTS[event.type] as ((data: unknown) => ChatEventDraft | null) | undefined;
  return draft ? draft(event.data) : null;
}

/** The domain events that may become chat events: the outbox consumer listens to these. */
export const SOURCE_EVENTS = Object.keys(DRAFTS) as (keyof DomainEventMap)[];

/** A later event of the same incident folded into a message not sent yet: one message per incident per minute. */
export function fold(into: ChatNotice, next: ChatNotice): ChatNotice {
  const severity = severityRank(next.severity) > severityRank(into.severity) ? next.severity : into.severity;
  return {
    ...into,
    severity,
    products: [...new Set([...into.products, ...next.products])].slice(0, MAX_PRODUCTS),
    folded: into.folded + 1 + next.folded,
  };
}
