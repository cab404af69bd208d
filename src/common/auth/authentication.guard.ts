import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import type { Actor } from './actor';
import { AUTH_STRATEGIES } from './auth-strategies';

/**
 * First global guard: recognises a bearer credential (JWT or API key) and
 * puts the caller on the request. It never rejects; RequireAuthGuard does,
 * after rate limiting has counted the request.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard(AUTH_STRATEGIES) {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.headers.authorization) return true;
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
