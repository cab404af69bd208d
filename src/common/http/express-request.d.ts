import type { Actor } from '../auth/actor';
import type { SpaceAccess } from '../permissions/space-access.port';

declare global {
  namespace Express {
    interface Request {
      /** X-Request-Id, accepted from the client or generated. */
      id: string;
      /** The authenticated caller; undefined for anonymous requests. */
      actor?: Actor;
      /** The `{slug}` space and the caller's role, set by SpaceRoleGuard. */
      spaceAccess?: SpaceAccess;
    }
  }
}

export {};
