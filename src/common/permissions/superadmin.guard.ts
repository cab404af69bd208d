import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { ACCESS_POLICY, AccessPolicy } from '../auth/access-policy';
import { Forbidden } from '../errors/domain-error';
import { ApiProblems } from '../openapi/api-problems.decorator';

@Injectable()
export class SuperadminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const actor = context.switchToHttp().getRequest<Request>().actor;
    if (!actor?.isSuperadmin) throw new Forbidden('Only a superadmin may do this.', 'superadmin_required');
    return true;
  }
}

/** The route is for superadmins only (403 for anyone else). */
export function SuperadminOnly() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'superadmin' } satisfies AccessPolicy),
    UseGuards(SuperadminGuard),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-role', 'superadmin'),
    ApiProblems(401, 403),
  );
}
