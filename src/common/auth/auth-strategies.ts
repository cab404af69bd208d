/**
 * Passport strategies the global guard tries, in order. JWTs come first and
 * never pay for the API-key lookup; the JWT strategy skips bearer tokens with
 * the API-key prefix, so a key is never parsed as a JWT.
 */
export const AUTH_STRATEGIES = ['jwt', 'api-key'];

/** How an API key starts; refresh tokens start `vrt_`, so the two cannot be confused. */
export const API_KEY_PREFIX = 'vk_';

/** An API key: the prefix and 43 base64url characters (256 random bits), as a RegExp source. */
export const API_KEY_PATTERN = `${API_KEY_PREFIX}[A-Za-z0-9_-]{43}`;
