import type { Response } from 'express';
import type { AppConfig } from '../../config/app.config';
import { IssuedTokens, REFRESH_TOKEN_SECONDS } from './sessions.service';

export const REFRESH_COOKIE = 'verity_refresh';
export const REFRESH_COOKIE_PATH = '/api/v1.0/auth';

/** How every sign-in answers (`/auth/token`, `/auth/refresh`, `/sso/exchange`): no-store, and the refresh cookie. */
export function setRefreshCookie(res: Response, tokens: IssuedTokens, config: AppConfig): IssuedTokens {
  res.setHeader('Cache-Control', 'no-store');
  res.cookie(REFRESH_COOKIE, tokens.refresh_token, {
    httpOnly: true,
    sameSite: 'strict',
    // HTTPS as configured, or as the request came (through a trusted proxy: TRUST_PROXY).
    secure: config.publicBaseUrl.startsWith('https:') || res.req.secure,
    path: REFRESH_COOKIE_PATH,
    maxAge: REFRESH_TOKEN_SECONDS * 1000,
  });
  return tokens;
}
