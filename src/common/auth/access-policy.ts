/**
 * Every route declares who may call it. The global guard fails closed, and
 * the route-policy test fails on a route without one of these.
 */
export const ACCESS_POLICY = 'verity:access-policy';

export type AccessPolicy =
  | { kind: 'public'; ignoresCaller?: boolean }
  /** `withOwnUser`: the credential's query also fetches the caller's own user row (see OwnUserRow). */
  | { kind: 'authenticated'; withOwnUser?: boolean }
  | { kind: 'superadmin' }
  /** SCIM provisioning: a SCIM token, checked by the SCIM module's own guard, never a user credential. */
  | { kind: 'scim' }
  | { kind: 'space'; role: 'admin' | 'editor' | 'viewer' };
