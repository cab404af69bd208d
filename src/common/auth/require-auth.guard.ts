import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Forbidden, Unauthorized } from '../errors/domain-error';
import { accessPolicyOf } from './access-policy';

/** `X-Instance-Id`, when sent, only confirms the credential's instance (docs/decisions.md#instance-of-a-credential). */
export const INSTANCE_HEADER = 'x-instance-id';

export class InstanceMismatch extends Forbidden {
  constructor() {
    super('X-Instance-Id does not name the instance of this credential.', 'instance_mismatch');
  }
}

/**
 * Last global guard: every route needs a caller unless it is marked
 * @Public(). Closed by default. A caller whose `X-Instance-Id` names another
 * instance than their credential's is refused (403), whatever the route and
 * whether that instance exists: a 404 for unknown ids would tell a caller
 * which instance ids exist.
 */
@Injectable()
export class RequireAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const policy = accessPolicyOf(context);
    const request = context.switchToHttp().getRequest<Request>();
    const instanceHeader = request.headers[INSTANCE_HEADER];
    if (request.actor && instanceHeader !== undefined) {
      const named = String(instanceHeader).trim().toLowerCase();
      if (named !== request.actor.instanceId) throw new InstanceMismatch();
    }
    // SCIM routes authenticate with SCIM tokens in their own guard.
    if (policy?.kind === 'public' || policy?.kind === 'scim') return true;
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
