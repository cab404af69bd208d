import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/** Any signed-in user (JWT or API key). */
export function Authenticated() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'authenticated' } satisfies AccessPolicy),
    ApiBearerAuth('bearer'),
    ApiProblems(401),
  );
}
