import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/**
 * Any signed-in user (JWT or API key). `withOwnUser`: a route that answers
 * from the caller's own user row (`GET /auth/me`, `GET /preferences`) has the
 * credential's query fetch it along, so the request makes one round trip.
 */
export function Authenticated(options: { withOwnUser?: boolean } = {}) {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, {
      kind: 'authenticated',
      ...(options.withOwnUser ? { withOwnUser: true } : {}),
    } satisfies AccessPolicy),
    ApiBearerAuth('bearer'),
    ApiProblems(401),
  );
}
