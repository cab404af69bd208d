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
  'api_key.created': { api_key_id: string; user_id: string; name: string; rate_limit_tier: string };
  'api_key.revoked': { api_key_id: string; user_id: string; reason: string };
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
