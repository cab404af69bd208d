import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ACCESS_POLICY, AccessPolicy } from '../../common/auth/access-policy';
import { NoRateLimit } from '../../common/http/rate-limit.decorators';
import { ScimExceptionFilter } from './scim-exception.filter';
import { SCIM_CONTENT_TYPE, SCIM_ERROR_SCHEMA_REF } from './scim-resources';
import { ScimTokensService } from './scim-tokens.service';
import { ScimError } from './scim.errors';

@Injectable()
export class ScimAuthGuard implements CanActivate {
  constructor(private readonly tokens: ScimTokensService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) throw new ScimError(401, 'Send a SCIM token as a bearer credential.');
    const tokenId = await this.tokens.authenticate(match[1]);
    if (!tokenId) throw new ScimError(401, 'The SCIM token is unknown, expired or revoked.');
    request.scimTokenId = tokenId;
    return true;
  }
}

/** The id of the SCIM token that authenticated the request (set by ScimAuthGuard). */
export const ScimTokenId = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    context.switchToHttp().getRequest<Request>().scimTokenId as string,
);

const SCIM_ERROR_STATUSES: Record<number, string> = {
  400: 'SCIM error: invalidFilter, invalidValue, invalidPath, invalidSyntax, noTarget or mutability.',
  401: 'SCIM error: missing, unknown, expired or revoked SCIM token.',
  404: 'SCIM error: no such resource.',
  409: 'SCIM error: uniqueness, or a space would lose its last admin.',
  412: 'SCIM error: If-Match does not match the current version.',
};

/** Documents SCIM error responses (`application/scim+json`, RFC 7644 §3.12). */
export function ApiScimErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: SCIM_ERROR_STATUSES[status] ?? 'SCIM error.',
        content: { [SCIM_CONTENT_TYPE]: { schema: SCIM_ERROR_SCHEMA_REF } },
      }),
    ),
  );
}

/**
 * A SCIM route: a SCIM token (never a user JWT or API key) is required, and
 * every error is written as a SCIM error body. SCIM is exempt from the
 * general rate limits: its requests carry no user, so they would count
 * against the anonymous per-address tier (60 a minute), which an identity
 * provider's full sync exceeds at once; the tokens are 256-bit random, so
 * the exemption does not make guessing one practical.
 */
export function ScimRoute() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'scim' } satisfies AccessPolicy),
    UseGuards(ScimAuthGuard),
    UseFilters(ScimExceptionFilter),
    NoRateLimit(),
    ApiBearerAuth('scim'),
    ApiExtension('x-required-credential', 'scim-token'),
    ApiScimErrors(401),
  );
}
