/**
 * Every domain event the API emits, by name (`<resource>.<verb>`) with its
 * payload. Producers append them to the outbox in their transaction; the
 * events backbone delivers them to notifications, webhooks and the audit log.
 * Modules add their events here as they are built.
 */
export interface DomainEventMap {
  'user.registered': { user_id: string; email: string };
  'user.updated': { user_id: string; changed: string[] };
  'user.deactivated': { user_id: string };

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
  'access_request.submitted': AccessRequestEventData;
  'access_request.approved': AccessRequestEventData & { expires_at: string | null; decided_by: string };
  'access_request.rejected': AccessRequestEventData & { reason: string; decided_by: string };
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
