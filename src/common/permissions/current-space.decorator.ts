import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { SpaceAccess } from './space-access.port';

/** The space of a `@SpaceRole` route and the caller's role in it, resolved by the guard. */
export const CurrentSpace = createParamDecorator((_data: unknown, context: ExecutionContext): SpaceAccess => {
  const access = context.switchToHttp().getRequest<Request>().spaceAccess;
  // A programming error: @CurrentSpace() without @SpaceRole().
  if (!access) throw new Error('@CurrentSpace() needs @SpaceRole() on the route.');
  return access;
});
