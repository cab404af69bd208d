import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { Forbidden } from '../errors/domain-error';
import { ApiProblems } from '../openapi/api-problems.decorator';

@Injectable()
export class SessionRequiredGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<Request>().actor?.apiKeyId) {
      throw new Forbidden('This needs a signed-in session; an API key cannot do it.', 'api_key_forbidden');
    }
    return true;
  }
}

/**
 * Refuses API keys (403): for managing API keys, so that a leaked key
 * cannot mint others that outlive its revocation.
 */
export function SessionRequired() {
  return applyDecorators(
    UseGuards(SessionRequiredGuard),
    ApiExtension('x-api-key', 'forbidden'),
    ApiProblems(403),
  );
}
