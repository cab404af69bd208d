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
} satisfies Record<DomainEventType, EventCatalogEntry>;

export function isDomainEventType(value: string): value is DomainEventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, value);
}
