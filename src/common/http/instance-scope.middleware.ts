import type { NextFunction, Request, Response } from 'express';
import { ExtractJwt } from 'passport-jwt';
import { InstanceContext } from '../../database/instance-context';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { API_KEY_PREFIX } from '../auth/auth-strategies';

// The same extraction as the JWT strategy's, so both read the same token.
const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();
const INS_CLAIM = '"ins":';
const DEFAULT_INS_CLAIM = `"ins":"${DEFAULT_INSTANCE_ID}"`;

/**
 * Whether the request's credential may reach an instance other than
 * `default`: an API key (its instance is known only after its lookup) or an
 * access token whose `ins` claim names another instance. The token is only
 * read here, not trusted: authentication verifies it afterwards, and leaves
 * a forged one anonymous (on `default`). Should a caller of another instance
 * still arrive without a scope, InstanceScopeGuard refuses the request.
 */
export function mayReachAnotherInstance(request: Request): boolean {
  const token = bearerToken(request);
  if (!token) return false;
  if (token.startsWith(API_KEY_PREFIX)) return true;
  const payload = token.split('.')[1];
  if (payload === undefined) return false;
  // Read as text, not parsed: the tokens this server signs are JSON.stringify's output, with one
  // `ins` at most, and any other text fails verification.
  const claims = Buffer.from(payload, 'base64url').toString('utf8');
  return claims.includes(INS_CLAIM) && !claims.includes(DEFAULT_INS_CLAIM);
}

/**
 * Opens the request's instance scope when its credential may reach another
 * instance; every other request is served on `default` outside any scope
 * (instance-context.ts says why). InstanceScopeGuard narrows the scope once
 * the caller is known, and refuses a caller of another instance without one.
 * Mounted after the body parsers: they resume the chain from stream
 * callbacks, which would not carry a scope opened before them.
 */
export function instanceScopeMiddleware(request: Request, _res: Response, next: NextFunction): void {
  if (mayReachAnotherInstance(request)) InstanceContext.openRequestScope(next);
  else next();
}
