import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { ACCESS_POLICY, AccessPolicy } from './access-policy';

/** The route needs no credential; a valid one is still recognised when sent. */
export function Public() {
  return applyDecorators(
    SetMetadata(ACCESS_POLICY, { kind: 'public' } satisfies AccessPolicy),
    ApiExtension('x-public', true),
  );
}
