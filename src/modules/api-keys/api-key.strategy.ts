import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-custom';
import type { Actor } from '../../common/auth/actor';
import { API_KEY_PATTERN } from '../../common/auth/auth-strategies';
import { ApiKeysService } from './api-keys.service';

// `vk_` and 43 base64url characters; anything else is not one of our keys and needs no lookup.
const API_KEY = new RegExp(`^bearer +(${API_KEY_PATTERN})$`, 'i');

/** `Authorization: Bearer vk_…`: the key's creator, with the key's id and tier. */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async validate(request: Request): Promise<Actor | false> {
    const secret = API_KEY.exec(request.headers.authorization ?? '')?.[1];
    if (!secret) return false;
    const resolved = await this.apiKeys.resolveActor(secret, request.spaceKeyToPrefetch);
    if (!resolved) return false;
    request.prefetchedSpace = resolved.space;
    return resolved.actor;
  }
}
