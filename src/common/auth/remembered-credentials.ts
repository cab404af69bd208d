import type { Request } from 'express';
import type { Actor } from './actor';

/**
 * Bearer credentials verified before, which the global authentication guard
 * resolves without passport. Passport checks a credential the first time it
 * is seen; its strategy then remembers it (the accounts module's JWT strategy
 * provides this class). Going through passport's per-request middleware (a
 * middleware, a strategy object and callbacks made per request, methods put
 * on the request) cost about a fifth of `GET /auth/me`'s server CPU, most of
 * it in garbage collection (issue 28).
 */
export abstract class RememberedCredentials {
  /**
   * The caller behind the request's credential when it is remembered and
   * still valid: the actor, or false when its session is gone. Undefined when
   * the credential is not remembered, and passport must decide.
   */
  abstract callerOf(request: Request): Promise<Actor | false> | undefined;
}
