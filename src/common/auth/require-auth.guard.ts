import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Unauthorized } from '../errors/domain-error';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/** Last global guard: every route needs a caller unless it is marked @Public(). Closed by default. */
@Injectable()
export class RequireAuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(ACCESS_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]);
    // SCIM routes authenticate with SCIM tokens in their own guard.
    if (policy?.kind === 'public' || policy?.kind === 'scim') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.actor) {
      throw new Unauthorized(
        request.headers.authorization
          ? 'The bearer credential is malformed, expired or revoked.'
          : 'Authentication is required: send a valid bearer token.',
      );
    }
    return true;
  }
}
