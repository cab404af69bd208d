import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { ACCESS_POLICY, AccessPolicy, accessPolicyOf } from '../auth/access-policy';
import { Unauthorized } from '../errors/domain-error';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { SpaceAccessPort, SpaceRoleName } from './space-access.port';

/**
 * Resolves `:slug` for a `@SpaceRole` route: from what the authentication
 * query fetched along, else one indexed query joining the
 * space and the caller's membership. Non-member 404, role too low 403. The
 * result goes on the request for `@CurrentSpace()`.
 */
@Injectable()
export class SpaceRoleGuard implements CanActivate {
  constructor(
    private readonly access: SpaceAccessPort,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = accessPolicyOf(context);
    if (policy?.kind !== 'space') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.actor) throw new Unauthorized();
    const slug = String(request.params.slug ?? '');
    const prefetched = request.prefetchedSpace;
    request.spaceAccess =
      prefetched?.key === slug
        ? this.access.decide(request.actor, slug, prefetched.row, policy.role)
        : // No transaction in a guard: the DataSource's manager.
          await this.access.requireRole(request.actor, slug, policy.role, this.dataSource.manager);
    return true;
  }
}

/**
 * The route lives under `{slug}` and needs at least this space role
 * (`viewer` for reads, `editor` for edit access, `admin` for Space Admin).
 */
export function SpaceRole(role: SpaceRoleName) {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'space', role } satisfies AccessPolicy),
    UseGuards(SpaceRoleGuard),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-space-role', role),
    ApiProblems(401, 403, 404),
  );
}
