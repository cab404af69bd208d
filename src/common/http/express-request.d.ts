import type { Actor } from '../auth/actor';

declare global {
  namespace Express {
    interface Request {
      /** X-Request-Id, accepted from the client or generated. */
      id: string;
      /** The authenticated caller; undefined for anonymous requests. */
      actor?: Actor;
    }
  }
}

export {};
