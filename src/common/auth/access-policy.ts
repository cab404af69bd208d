import type { ExecutionContext } from '@nestjs/common';

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

// Per controller class, then per handler: a handler inherited by two controllers may carry either's class policy.
const policies = new WeakMap<object, WeakMap<object, AccessPolicy | null>>();

/**
 * The route's policy: its handler's, else its controller's. The guards ask
 * on every request; the metadata is read once per route.
 */
export function accessPolicyOf(context: ExecutionContext): AccessPolicy | undefined {
  const controller = context.getClass();
  const handler = context.getHandler();
  let byHandler = policies.get(controller);
  if (!byHandler) {
    byHandler = new WeakMap();
    policies.set(controller, byHandler);
  }
  let policy = byHandler.get(handler);
  if (policy === undefined) {
    policy =
      (Reflect.getMetadata(ACCESS_POLICY, handler) as AccessPolicy | undefined) ??
      (Reflect.getMetadata(ACCESS_POLICY, controller) as AccessPolicy | undefined) ??
      null;
    byHandler.set(handler, policy);
  }
  return policy ?? undefined;
}
