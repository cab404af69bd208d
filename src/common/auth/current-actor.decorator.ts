import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Unauthorized } from '../errors/domain-error';
import type { Actor, OwnUserRow } from './actor';

/** The authenticated caller of this request. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const actor = context.switchToHttp().getRequest<Request>().actor;
  if (!actor) throw new Unauthorized();
  return actor;
});

/** The caller if one authenticated, else undefined (for public routes). */
export const OptionalActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Actor | undefined =>
    context.switchToHttp().getRequest<Request>().actor,
);

/** The caller's own user row if the authentication query fetched it (`@Authenticated({ withOwnUser: true })`). */
export const PrefetchedOwnUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OwnUserRow | undefined =>
    context.switchToHttp().getRequest<Request>().prefetchedOwnUser,
);

/** Client address and user agent, for sessions and the audit log. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export const Client = createParamDecorator((_data: unknown, context: ExecutionContext): ClientInfo => {
  const request = context.switchToHttp().getRequest<Request>();
  return { ip: request.ip ?? null, userAgent: request.header('user-agent')?.slice(0, 500) ?? null };
});
