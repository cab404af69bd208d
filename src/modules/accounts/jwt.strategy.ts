import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { Actor } from '../../common/auth/actor';
import { API_KEY_PREFIX } from '../../common/auth/auth-strategies';
import { isUuid } from '../../common/validation/field.decorators';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AccessClaims, SessionsService } from './sessions.service';

const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();

/** The bearer token unless it is an API key, which the api-key strategy handles without a JWT parse. */
function jwtFromRequest(request: Parameters<typeof bearerToken>[0]): string | null {
  const token = bearerToken(request);
  return token && !token.startsWith(API_KEY_PREFIX) ? token : null;
}

/** Verifies HS256 access tokens and checks on each request that their session is still live. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
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

  async validate(request: Request, claims: AccessClaims): Promise<Actor | false> {
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
