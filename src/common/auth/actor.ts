import type { RateLimitTier } from '../../config/app.config';

/**
 * Who is calling: resolved once per request by the authentication guard and
 * passed explicitly as the first argument of every service method.
 */
export interface Actor {
  userId: string;
  email: string;
  isSuperadmin: boolean;
  /** The session behind a JWT; null when the caller used an API key. */
  sessionId: string | null;
  /** The API key used; null for a JWT. */
  apiKeyId: string | null;
  /** The key's tier when an API key was used. */
  apiKeyTier: RateLimitTier | null;
  /** The superadmin acting through an impersonation token, if any. */
  impersonatorId: string | null;
  /** The instance the credential is for (the token's `ins`, or the API key's instance). */
  instanceId: string;
}

/**
 * The caller's own user row when the authentication query fetched it along
 * (`@Authenticated({ withOwnUser: true })`): the users module's own-user
 * columns, named as its entity's properties. Typed loosely here because
 * common/ knows no module's entities; the users module reads it.
 */
export type OwnUserRow = Record<string, unknown>;
