import type { Actor, OwnUserRow } from '../auth/actor';
import type { PrefetchedSpace, SpaceAccess } from '../permissions/space-access.port';

declare global {
  namespace Express {
    interface Request {
      /** X-Request-Id, accepted from the client or generated. */
      id: string;
      /** The authenticated caller; undefined for anonymous requests. */
      actor?: Actor;
      /** The `{slug}` space and the caller's role, set by SpaceRoleGuard. */
      spaceAccess?: SpaceAccess;
      /** On a `@SpaceRole` route: the `{slug}` the authentication query should fetch along. */
      spaceKeyToPrefetch?: string;
      /** What the authentication query fetched of that space, for SpaceRoleGuard. */
      prefetchedSpace?: PrefetchedSpace;
      /** On an `@Authenticated({ withOwnUser: true })` route: the authentication query should fetch the caller's row. */
      ownUserToPrefetch?: boolean;
      /** The caller's own user row, when the authentication query fetched it (a session's JWT; not an API key). */
      prefetchedOwnUser?: OwnUserRow;
      /** On a SCIM route: the SCIM token that authenticated the request. */
      scimTokenId?: string;
    }
  }
}

export {};
