import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/**
 * The route needs no credential; a valid one is still recognised when sent
 * (for rate limits and auditing), unless `ignoresCaller`: then the route
 * never looks at who calls and a sent credential is not even checked.
 */
export function Public(options: { ignoresCaller?: boolean } = {}) {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'public', ...options } satisfies AccessPolicy),
    ApiExtension('x-public', true),
    // The document leaves `X-Instance-Id` (and its 403) off such a route: no caller is known there.
    ...(options.ignoresCaller ? [ApiExtension('x-ignores-caller', true)] : []),
  );
}
