/**
 * Every domain event the API emits, by name (`<resource>.<verb>`) with its
 * payload. Producers append them to the outbox in their transaction; the
 * dispatcher hands them to notifications and webhooks. Adding an event means
 * adding its payload here and its catalog entry below (the compiler insists).
 */
export interface DomainEventMap {
  'user.registered': { user_id: string; email: string };
  'user.updated': { user_id: string; changed: string[] };
  'user.deactivated': { user_id: string };
  'api_key.created': { api_key_id: string; user_id: string; name: string; rate_limit_tier: string };
  'api_key.revoked': { api_key_id: string; user_id: string; reason: string };

  // Spaces and members.
  'space.created': { space_id: string; name: string; slug: string };
  'space.updated': { space_id: string; changed: string[] };
  'space.features_changed': { space_id: string; features: Record<string, boolean>; changed: string[] };
  'space.deleted': { space_id: string; name: string; slug: string };
  'space.member_added': { space_id: string; user_id: string; role: string };
  'space.member_role_changed': { space_id: string; user_id: string; role: string; previous_role: string };
  'space.member_removed': { space_id: string; user_id: string; role: string };

  // Metadata configuration (criticality levels, sensitivity levels, maintenance statuses).
  'metadata_config.changed': {
    space_id: string;
    collection: 'criticality-levels' | 'sensitivity-levels' | 'maintenance-statuses';
    action: 'created' | 'updated' | 'deleted' | 'seeded';
    item_ids: string[];
  };

  // Catalog.
  'product.created': ProductEventData;
  'product.updated': ProductEventData & { changed: string[] };
  'product.deleted': { product_id: string; space_id: string; name: string };
  'lineage.changed': {
    space_id: string;
    action: 'added' | 'removed';
    upstream_id: string;
    downstream_id: string;
  };
  'product.schema_changed': {
    product_id: string;
    space_id: string;
    name: string;
    change_id: string;
    added: string[];
    removed: string[];
    changed: string[];
  };
  'access_request.submitted': AccessRequestEventData;
  'access_request.approved': AccessRequestEventData & { expires_at: string | null; decided_by: string };
  'access_request.rejected': AccessRequestEventData & { reason: string; decided_by: string };

  // Issue tracker.
  'ticket.created': TicketEventData;
  'ticket.updated': TicketEventData & { changed: string[] };
  'ticket.deleted': { ticket_id: string; space_id: string; title: string };
  'ticket.commented': {
    ticket_id: string;
    space_id: string;
    comment_id: string;
    author_id: string;
    mentioned_user_ids: string[];
  };

  // Data quality: check runs, alerts, incidents.
  'quality_check.passed': CheckRunEventData;
  'quality_check.failed': CheckRunEventData;
  'alert.created': AlertEventData;
  'alert.resolved': AlertEventData;
  'incident.created': IncidentEventData;
  'incident.updated': IncidentEventData & {
    changed: string[];
    /** The severity before this change (equal to `severity` when it did not change). */
    previous_severity: string;
  };
  'incident.resolved': IncidentEventData;

  // Outbound integrations in trouble.
  'webhook.failing': WebhookFailingEventData;
  'connector.failing': ConnectorFailingEventData;

  // OpenLineage run health.
  'lineage.run_failed': LineageRunFailedEventData;

  // Attachments (of products and tickets).
  'attachment.created': AttachmentEventData;
  'attachment.deleted': AttachmentEventData & {
    /** `deleted` by a user; `parent_deleted` when its product, ticket or space went. */
    reason: 'deleted' | 'parent_deleted';
  };

  // Governance: risk register and policies.
  'risk.created': RiskEventData;
  'risk.updated': RiskEventData & { changed: string[] };
  'risk.deleted': RiskEventData;
  'policy.violated': PolicyViolatedEventData;

  // Standards pages.
  'standard_page.created': StandardPageEventData;
  'standard_page.updated': StandardPageEventData & { changed: string[] };
  'standard_page.published': StandardPageEventData;
  'standard_page.unpublished': StandardPageEventData;
  'standard_page.deleted': StandardPageEventData;
}

export interface StandardPageEventData {
  standard_page_id: string;
  space_id: string;
  title: string;
  status: string;
  published_at: string | null;
}

export interface RiskEventData {
  risk_id: string;
  space_id: string;
  title: string;
  category: string;
  likelihood: string;
  impact: string;
  score: number;
  tier: string;
  status: string;
  product_ids: string[];
}

export interface PolicyViolatedEventData {
  policy_id: string;
  policy_name: string;
  severity: string;
  space_id: string;
  product_id: string;
  product_name: string;
  /** The product's status for this policy before (null: never evaluated). */
  previous_status: 'compliant' | 'error' | null;
  message: string;
  evaluated_at: string;
}

export interface TicketEventData {
  ticket_id: string;
  space_id: string;
  title: string;
  status: string;
  priority: string;
  reporter_id: string;
  assignee_id: string | null;
  product_id: string | null;
}

export interface CheckRunEventData {
  check_id: string;
  run_id: string;
  space_id: string;
  product_id: string;
  check_type: string;
  name: string;
  status: string;
  observed_value: number | null;
  message: string | null;
  alert_id: string | null;
}

export interface AlertEventData {
  alert_id: string;
  space_id: string;
  product_id: string;
  alert_type: string;
  severity: string;
  status: string;
  check_id: string | null;
  incident_id: string;
  message: string;
}

export interface IncidentEventData {
  incident_id: string;
  space_id: string;
  title: string;
  status: string;
  severity: string;
  alert_count: number;
  root_product_id: string | null;
  blast_radius_snapshot: string[];
}

export interface WebhookFailingEventData {
  webhook_id: string;
  space_id: string;
  /** The host of the webhook's URL (never the URL: it may carry a token). */
  url_host: string;
  /** `failing`: a run of failed deliveries began; `disabled`: the webhook was switched off. */
  state: 'failing' | 'disabled';
  failing_since: string;
  reason: string;
}

export interface ConnectorFailingEventData {
  connector_id: string;
  space_id: string;
  name: string;
  /** The harvest (`sync`) that failed after the last one succeeded or none ran. */
  operation: 'sync';
  error: string;
}

export interface LineageRunFailedEventData {
  space_id: string;
  job_id: string;
  job_namespace: string;
  job_name: string;
  /** Verity's id of the run (`GET /spaces/{slug}/lineage/jobs/{job_id}/runs`). */
  lineage_run_id: string;
  /** OpenLineage's runId. */
  run_id: string;
  state: 'FAIL' | 'ABORT';
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  error_message: string | null;
  output_product_ids: string[];
  /** The alerts raised on the output products (none when a later run of the job already completed). */
  alert_ids: string[];
}

export interface AttachmentEventData {
  attachment_id: string;
  space_id: string;
  parent_type: 'product' | 'ticket';
  product_id: string | null;
  ticket_id: string | null;
  comment_id: string | null;
  file_name: string;
  file_size: number;
  mime_type: string;
  uploaded_by: string | null;
}

export interface ProductEventData {
  product_id: string;
  space_id: string;
  name: string;
  product_type: string;
  owner_ids: string[];
  steward_ids: string[];
}

export interface AccessRequestEventData {
  request_id: string;
  space_id: string;
  product_id: string;
  product_name: string;
  requester_id: string;
  access_level: string;
}

export type DomainEventType = keyof DomainEventMap;

export interface DomainEvent<T extends DomainEventType = DomainEventType> {
  type: T;
  data: DomainEventMap[T];
  /** The space the event belongs to; null for platform-wide events. */
  spaceId?: string | null;
  /** Who caused it; null for the system. */
  actorId?: string | null;
}

export interface EventCatalogEntry {
  category: string;
  description: string;
  /** Space-scoped events can be subscribed to by a space's webhooks. */
  scope: 'space' | 'platform';
}

export const EVENT_CATALOG = {
  'user.registered': { category: 'users', description: 'An account was created.', scope: 'platform' },
  'user.updated': { category: 'users', description: 'A superadmin changed an account.', scope: 'platform' },
  'user.deactivated': { category: 'users', description: 'An account was deactivated.', scope: 'platform' },
  'api_key.created': { category: 'api_keys', description: 'A user created an API key.', scope: 'platform' },
  'api_key.revoked': { category: 'api_keys', description: 'An API key was revoked.', scope: 'platform' },
  'space.created': { category: 'spaces', description: 'A space was created.', scope: 'space' },
  'space.updated': {
    category: 'spaces',
    description: "A space's name or description changed.",
    scope: 'space',
  },
  'space.features_changed': {
    category: 'spaces',
    description: "A space's feature switches changed.",
    scope: 'space',
  },
  'space.deleted': { category: 'spaces', description: 'A space was deleted.', scope: 'space' },
  'space.member_added': { category: 'spaces', description: 'A user joined the space.', scope: 'space' },
  'space.member_role_changed': {
    category: 'spaces',
    description: "A member's role changed.",
    scope: 'space',
  },
  'space.member_removed': { category: 'spaces', description: 'A member left the space.', scope: 'space' },
  'metadata_config.changed': {
    category: 'metadata_config',
    description: 'Criticality levels, sensitivity levels or maintenance statuses changed.',
    scope: 'space',
  },
  'product.created': { category: 'catalog', description: 'A data product was created.', scope: 'space' },
  'product.updated': { category: 'catalog', description: 'A data product changed.', scope: 'space' },
  'product.deleted': { category: 'catalog', description: 'A data product was deleted.', scope: 'space' },
  'lineage.changed': {
    category: 'catalog',
    description: 'A lineage edge was added or removed.',
    scope: 'space',
  },
  'product.schema_changed': {
    category: 'catalog',
    description: "A product's columns changed between two OpenLineage schema facets.",
    scope: 'space',
  },
  'access_request.submitted': {
    category: 'access_requests',
    description: 'Someone asked for access to a product.',
    scope: 'space',
  },
  'access_request.approved': {
    category: 'access_requests',
    description: 'An access request was approved.',
    scope: 'space',
  },
  'access_request.rejected': {
    category: 'access_requests',
    description: 'An access request was rejected.',
    scope: 'space',
  },
  'ticket.created': { category: 'issues', description: 'A ticket was filed.', scope: 'space' },
  'ticket.updated': {
    category: 'issues',
    description: "A ticket's fields, status or assignee changed.",
    scope: 'space',
  },
  'ticket.deleted': { category: 'issues', description: 'A ticket was deleted.', scope: 'space' },
  'ticket.commented': { category: 'issues', description: 'Someone commented on a ticket.', scope: 'space' },
  'quality_check.passed': { category: 'quality', description: 'A quality check run passed.', scope: 'space' },
  'quality_check.failed': {
    category: 'quality',
    description: 'A quality check run failed (an alert was opened).',
    scope: 'space',
  },
  'alert.created': {
    category: 'quality',
    description: 'An alert was opened (by a failed check or pushed by a monitoring tool).',
    scope: 'space',
  },
  'alert.resolved': { category: 'quality', description: 'An alert was resolved.', scope: 'space' },
  'incident.created': {
    category: 'quality',
    description: 'A new incident was opened for an alert that joined no open incident.',
    scope: 'space',
  },
  'incident.updated': {
    category: 'quality',
    description: 'An incident changed: an alert joined it, or its status, severity, root or notes changed.',
    scope: 'space',
  },
  'incident.resolved': { category: 'quality', description: 'An incident was resolved.', scope: 'space' },
  'webhook.failing': {
    category: 'integrations',
    description:
      'A webhook began failing (the first failed delivery attempt after a success or since it was enabled), or was ' +
      'disabled for failing.',
    scope: 'space',
  },
  'connector.failing': {
    category: 'integrations',
    description: "A connector's harvest failed after the previous one succeeded (or none ran before).",
    scope: 'space',
  },
  'lineage.run_failed': {
    category: 'lineage',
    description:
      'An OpenLineage run turned failed or aborted (a FAIL or ABORT event became its state); alerts are raised on its ' +
      'outputs unless a later run of the job already completed.',
    scope: 'space',
  },
  'attachment.created': {
    category: 'attachments',
    description: 'A file was attached to a data product or a ticket.',
    scope: 'space',
  },
  'attachment.deleted': {
    category: 'attachments',
    description: 'An attachment was deleted (by a user, or with its product, ticket or space).',
    scope: 'space',
  },
  'risk.created': {
    category: 'governance',
    description: 'A risk was added to the register.',
    scope: 'space',
  },
  'risk.updated': {
    category: 'governance',
    description: 'A risk changed: its fields, status, owner, review date or linked products.',
    scope: 'space',
  },
  'risk.deleted': {
    category: 'governance',
    description: 'A risk was removed from the register.',
    scope: 'space',
  },
  'policy.violated': {
    category: 'governance',
    description:
      'A product became non-compliant with an enabled policy (it was compliant, in error or never evaluated).',
    scope: 'space',
  },
  'standard_page.created': {
    category: 'standards',
    description: 'A standards page was created (as a draft or published).',
    scope: 'space',
  },
  'standard_page.updated': {
    category: 'standards',
    description: "A standards page's title or body changed.",
    scope: 'space',
  },
  'standard_page.published': {
    category: 'standards',
    description: 'A standards page was published: every member of the space can read it.',
    scope: 'space',
  },
  'standard_page.unpublished': {
    category: 'standards',
    description: 'A standards page went back to draft.',
    scope: 'space',
  },
  'standard_page.deleted': {
    category: 'standards',
    description: 'A standards page was deleted.',
    scope: 'space',
  },
} satisfies Record<DomainEventType, EventCatalogEntry>;

export function isDomainEventType(value: string): value is DomainEventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, value);
}
