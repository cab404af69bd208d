import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { Forbidden } from '../errors/domain-error';
import { ApiProblems } from '../openapi/api-problems.decorator';

@Injectable()
export class NotImpersonatedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<Request>().actor?.impersonatorId) {
      throw new Forbidden('This is not allowed with an impersonation token.', 'impersonation_forbidden');
    }
    return true;
  }
}

/** Refuses impersonation tokens (credential changes, API keys, impersonating again). */
export function NotImpersonated() {
  return applyDecorators(
    UseGuards(NotImpersonatedGuard),
    ApiExtension('x-impersonation', 'forbidden'),
    ApiProblems(403),
  );
}
