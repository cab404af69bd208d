/**
 * Every route declares who may call it. The global guard fails closed, and
 * the route-policy test fails on a route without one of these.
 */
export const ACCESS_POLICY = 'verity:access-policy';

export type AccessPolicy =
  | { kind: 'public'; ignoresCaller?: boolean }
  | { kind: 'authenticated' }
  | { kind: 'superadmin' }
  | { kind: 'space'; role: 'admin' | 'editor' | 'viewer' };
