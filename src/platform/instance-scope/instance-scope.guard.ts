import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { CONTROL_PLANE } from '../../common/auth/control-plane.decorator';
import { InstanceContext } from '../../database/instance-context';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { InstanceUserCopies } from './instance-user-copies.service';

/**
 * Global guard after authentication: resolves the request's instance once
 * (the token's `ins` or the API key's instance) and points the request's
 * instance scope at that instance's database, so everything after it (space
 * guards, services, repositories, transactions) uses that database without
 * being told. 503 with Retry-After while that database is down; control-plane
 * routes stay on the deployment database.
 */
@Injectable()
export class InstanceScopeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly databases: InstanceDatabases,
    private readonly copies: InstanceUserCopies,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const actor = context.switchToHttp().getRequest<Request>().actor;
    // `default` stays synchronous: it is every request of a single-instance deployment.
    if (!actor || actor.instanceId === DEFAULT_INSTANCE_ID) return true;
    if (
      this.reflector.getAllAndOverride<boolean>(CONTROL_PLANE, [context.getHandler(), context.getClass()])
    ) {
      return true;
    }
    return this.enter(actor.instanceId, actor.userId);
  }

  private async enter(instanceId: string, userId: string): Promise<boolean> {
    const dataSource = await this.databases.dataSource(instanceId);
    try {
      await this.copies.ensure(instanceId, userId, dataSource);
    } catch (error) {
      // The scope is not narrowed yet, so the filter would not know the instance.
      throw this.databases.unavailable(instanceId, error) ?? error;
    }
    InstanceContext.narrow(instanceId, dataSource);
    return true;
  }
}
