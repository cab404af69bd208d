import type { NextFunction, Request, Response } from 'express';
import { ExtractJwt } from 'passport-jwt';
import { InstanceContext } from '../../database/instance-context';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { API_KEY_PREFIX } from '../auth/auth-strategies';

// The same extraction as the JWT strategy's, so both read the same token.
const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();
const INS_CLAIM = '"ins":';
const DEFAULT_INS_CLAIM = `"ins":"${DEFAULT_INSTANCE_ID}"`;

/** The instance of an API key, null for what is no key; it may fail (its database is down). */
export type ApiKeyInstanceLookup = (secret: string) => Promise<string | null>;

/**
 * Whether an access token may reach an instance other than `default`: its
 * `ins` claim names another one. The token is only read here, not trusted:
 * authentication verifies it afterwards, and leaves a forged one anonymous
 * (on `default`). Read as text, not parsed: the tokens this server signs are
 * JSON.stringify's output, with one `ins` at most.
 */
export function tokenNamesAnotherInstance(token: string): boolean {
  const payload = token.split('.')[1];
  if (payload === undefined) return false;
  const claims = Buffer.from(payload, 'base64url').toString('utf8');
  return claims.includes(INS_CLAIM) && !claims.includes(DEFAULT_INS_CLAIM);
}

/**
 * Opens the request's instance scope when its credential may reach another
 * instance: a token naming one, or an API key of one (looked up, and
 * remembered, by ApiKeysService); a key whose lookup fails gets a scope, and
 * authentication decides. Every other request is served on `default` outside
 * any scope (instance-context.ts says why). InstanceScopeGuard narrows the
 * scope once the caller is known, and refuses a caller of another instance
 * without one. Mounted after the body parsers: they resume the chain from
 * stream callbacks, which would not carry a scope opened before them.
 */
export function instanceScopeMiddleware(apiKeyInstance: ApiKeyInstanceLookup) {
  return (request: Request, _res: Response, next: NextFunction): void => {
    const token = bearerToken(request);
    if (!token) return next();
    if (!token.startsWith(API_KEY_PREFIX)) {
      if (tokenNamesAnotherInstance(token)) InstanceContext.openRequestScope(next);
      else next();
      return;
    }
    apiKeyInstance(token).then(
      (instance) =>
        instance === null || instance === DEFAULT_INSTANCE_ID
          ? next()
          : InstanceContext.openRequestScope(next),
      () => InstanceContext.openRequestScope(next),
    );
  };
}
