import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { InstanceDatabases } from '../../database/instance-databases';
import { Forbidden, NotFound, Unauthorized } from '../errors/domain-error';
import { isUuid } from '../validation/field.decorators';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/** `X-Instance-Id`, when sent, only confirms the credential's instance (decisions section 13). */
export const INSTANCE_HEADER = 'x-instance-id';

export class InstanceMismatch extends Forbidden {
  constructor() {
    super('X-Instance-Id does not name the instance of this credential.', 'instance_mismatch');
  }
}

/**
 * Last global guard: every route needs a caller unless it is marked
 * @Public(). Closed by default. A caller whose `X-Instance-Id` names another
 * instance than their credential's is refused (403), whatever the route,
 * and one naming no instance at all gets 404.
 */
@Injectable()
export class RequireAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly databases: InstanceDatabases,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(ACCESS_POLICY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const request = context.switchToHttp().getRequest<Request>();
    const instanceHeader = request.headers[INSTANCE_HEADER];
    if (request.actor && instanceHeader !== undefined) {
      const named = String(instanceHeader).trim().toLowerCase();
      // Only a mismatch asks the registry (asynchronously): every other request stays synchronous.
      if (named !== request.actor.instanceId) return this.refuseOtherInstance(named);
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

  /** 404 for an `X-Instance-Id` naming no instance, 403 for another existing one. */
  private async refuseOtherInstance(named: string): Promise<never> {
    if (!isUuid(named)) throw new NotFound('instance');
    if (!(await this.databases.exists(named))) throw new NotFound('instance', named);
    throw new InstanceMismatch();
  }
}
