import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { Actor } from '../../common/auth/actor';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AccessClaims, SessionsService } from './sessions.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Verifies HS256 access tokens and checks on each request that their session is still live. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionsService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A KeyObject: given a string, jsonwebtoken first tries (and fails) to parse a public key on every
      // request, which costs more than the rest of the verification.
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret)) as unknown as string,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(claims: AccessClaims): Promise<Actor | false> {
    if (claims.typ !== 'access' || !UUID.test(String(claims.sid)) || !UUID.test(String(claims.sub)))
      return false;
    return (await this.sessions.resolveActor(claims)) ?? false;
  }
}
