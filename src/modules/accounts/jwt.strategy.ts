import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { Actor } from '../../common/auth/actor';
import { API_KEY_PREFIX } from '../../common/auth/auth-strategies';
import type { RememberedCredentials } from '../../common/auth/remembered-credentials';
import { LruCache } from '../../common/cache/lru-cache';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AccessClaims, SessionsService } from './sessions.service';

const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();

/** The bearer token unless it is an API key, which the api-key strategy handles without a JWT parse. */
function jwtFromRequest(request: Parameters<typeof bearerToken>[0]): string | null {
  const token = bearerToken(request);
  return token && !token.startsWith(API_KEY_PREFIX) ? token : null;
}

/** Verified tokens remembered, at most (about 0.5 KB each). */
const VERIFIED_TOKENS_REMEMBERED = 10_000;

/**
 * Verifies HS256 access tokens and checks on each request that their session is still live.
 *
 * A token's signature is checked once, by passport: its exact text is then remembered with its claims,
 * and the authentication guard resolves a request with the same text here (callerOf), without passport,
 * the HMAC or the JSON decoding, but not without the expiry (checked as jsonwebtoken checks it, to the
 * second) nor the session lookup, which revocation and logout go through. Only tokens that verified are
 * remembered, so a forged one never is.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') implements RememberedCredentials {
  private readonly verifiedTokens = new LruCache<AccessClaims & { exp: number }>({
    capacity: VERIFIED_TOKENS_REMEMBERED,
  });

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionsService,
  ) {
    super({
      jwtFromRequest,
      // A prepared key: given a string, jsonwebtoken parses it as a possible
      // public key on every verification, which was half of a request's CPU.
      // (jsonwebtoken accepts a KeyObject; passport-jwt's types only list string and Buffer.)
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret)) as unknown as Buffer,
      algorithms: ['HS256'],
      ignoreExpiration: false,
      passReqToCallback: true,
    });
  }

  /** A remembered token that has not expired goes straight to the session check; others go to passport. */
  callerOf(request: Request): Promise<Actor | false> | undefined {
    const token = jwtFromRequest(request);
    const claims = token === null ? undefined : this.verifiedTokens.get(token);
    if (!claims || Math.floor(Date.now() / 1000) >= claims.exp) return undefined;
    return this.actorOf(request, claims);
  }

  /** Called by passport-jwt with the claims of a token it has just verified. */
  async validate(request: Request, claims: AccessClaims): Promise<Actor | false> {
    const token = jwtFromRequest(request);
    if (token !== null && typeof claims.exp === 'number' && !('nbf' in claims)) {
      this.verifiedTokens.set(token, claims as AccessClaims & { exp: number });
    }
    return this.actorOf(request, claims);
  }

  private async actorOf(request: Request, claims: AccessClaims): Promise<Actor | false> {
    if (claims.typ !== 'access' || !isUuid(claims.sid) || !isUuid(claims.sub)) return false;
    const resolved = await this.sessions.resolveActor(
      claims,
      request.spaceKeyToPrefetch,
      request.ownUserToPrefetch,
    );
    if (!resolved) return false;
    request.prefetchedSpace = resolved.space;
    request.prefetchedOwnUser = resolved.ownUser;
    return resolved.actor;
  }
}
