import { ExecutionContext, Injectable, Optional } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { accessPolicyOf } from './access-policy';
import type { Actor } from './actor';
import { AUTH_STRATEGIES } from './auth-strategies';
import { RememberedCredentials } from './remembered-credentials';

/**
 * First global guard: recognises a bearer credential (JWT or API key) and
 * puts the caller on the request. It never rejects; RequireAuthGuard does,
 * after rate limiting has counted the request. On a `@SpaceRole` route the
 * credential's query also fetches the `{slug}` space and the caller's role,
 * so SpaceRoleGuard needs no query of its own. A credential verified before
 * is resolved without passport (RememberedCredentials).
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard(AUTH_STRATEGIES) {
  constructor(@Optional() private readonly remembered?: RememberedCredentials) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.headers.authorization) return true;
    const policy = accessPolicyOf(context);
    // Routes that never look at the caller (health, metrics) skip the credential's lookup.
    if (policy?.kind === 'public' && policy.ignoresCaller) return true;
    // A SCIM token is no user credential: the SCIM guard checks it.
    if (policy?.kind === 'scim') return true;
    if (policy?.kind === 'space') request.spaceKeyToPrefetch = String(request.params.slug ?? '');
    if (policy?.kind === 'authenticated' && policy.withOwnUser) request.ownUserToPrefetch = true;
    const caller = this.remembered?.callerOf(request);
    if (caller) {
      const actor = await caller.catch(() => false as const);
      if (actor) request.actor = actor;
      return true;
    }
    try {
      await super.canActivate(context);
    } catch {
      // An unusable credential leaves the request anonymous.
    }
    return true;
  }

  override handleRequest<TUser = Actor>(
    _error: unknown,
    user: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (user) context.switchToHttp().getRequest<Request>().actor = user as unknown as Actor;
    return user as TUser;
  }
}
