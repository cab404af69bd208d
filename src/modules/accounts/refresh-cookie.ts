import type { CookieOptions, Response } from 'express';
import type { AppConfig } from '../../config/app.config';
import { IssuedTokens, REFRESH_TOKEN_SECONDS } from './sessions.service';

export const REFRESH_COOKIE = 'verity_refresh';
export const REFRESH_COOKIE_PATH = '/api/v1.0/auth';

/** The cookie's contract, for the OpenAPI descriptions of the routes that set it. */
export const REFRESH_COOKIE_DOC =
  'The refresh token is also set as an HttpOnly cookie scoped to /api/v1.0/auth, SameSite=Strict unless the operator sets REFRESH_COOKIE_SAMESITE: `lax`, or `none` for a browser app on another site (its origin in CORS_ORIGINS, calling with credentials), which always makes the cookie Secure (browsers keep it over HTTPS, and on http://localhost and 127.0.0.1 only) and Partitioned (CHIPS: browsers that block third-party cookies keep it in a jar of the site of the app). With `strict` or `lax` a browser never sends the cookie from another site: such an app passes `refresh_token` in the body instead.';

/** How every sign-in answers (`/auth/token`, `/auth/refresh`, `/sso/exchange`): no-store, and the refresh cookie. */
export function setRefreshCookie(res: Response, tokens: IssuedTokens, config: AppConfig): IssuedTokens {
  res.setHeader('Cache-Control', 'no-store');
  res.cookie(REFRESH_COOKIE, tokens.refresh_token, {
    ...cookieAttributes(res, config),
    maxAge: REFRESH_TOKEN_SECONDS * 1000,
  });
  return tokens;
}

/** Removes the cookie with the attributes it was set with: a browser ignores a cross-site removal otherwise. */
export function clearRefreshCookie(res: Response, config: AppConfig): void {
  res.clearCookie(REFRESH_COOKIE, cookieAttributes(res, config));
}

function cookieAttributes(res: Response, config: AppConfig): CookieOptions {
  const sameSite = config.refreshCookieSameSite;
  return {
    httpOnly: true,
    sameSite,
    // Browsers drop SameSite=None without Secure; otherwise HTTPS as configured, or as the request came
    // (through a trusted proxy: TRUST_PROXY).
    secure: sameSite === 'none' || config.publicBaseUrl.startsWith('https:') || res.req.secure,
    // Browsers that block third-party cookies still keep a partitioned one (CHIPS), in a jar of the app's
    // site: the cookie is only ever for that app's session anyway.
    partitioned: sameSite === 'none',
    path: REFRESH_COOKIE_PATH,
  };
}
