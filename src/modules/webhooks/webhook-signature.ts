import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../../platform/crypto/tokens';

export const SECRET_PREFIX = 'whsec_';

/** `whsec_` followed by base64 of at least 16 bytes (Standard Webhooks). */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  return Buffer.from(encoded, 'base64').length >= 16;
}

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** base64 HMAC-SHA256 of `id.timestamp.body` under the secret's key (Standard Webhooks). */
function sign(secret: string, messageId: string, timestamp: string, body: string | Buffer): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64');
}

/** The Standard Webhooks headers for one attempt: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export function signatureHeaders(
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  return {
    'content-type': 'application/json',
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${sign(secret, messageId, timestamp, body)}`,
  };
}

export type SignatureCheck =
  { valid: true; messageId: string; timestamp: Date } | { valid: false; reason: string };

/**
 * Checks an inbound Standard Webhooks request: the three headers present, the
 * timestamp within `toleranceSeconds` of `now` either way, and one of the
 * space-separated `v1,<signature>` entries matching the raw body.
 */
export function verifySignature(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: Buffer,
  now: Date,
  toleranceSeconds: number,
): SignatureCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) {
    return {
      valid: false,
      reason: 'The webhook-id, webhook-timestamp and webhook-signature headers are required.',
    };
  }
  if (!/^\d{1,12}$/.test(timestamp))
    return { valid: false, reason: 'webhook-timestamp must be Unix seconds.' };
  const seconds = Number(timestamp);
  if (Math.abs(now.getTime() / 1000 - seconds) > toleranceSeconds) {
    return {
      valid: false,
      reason: `The message timestamp is more than ${toleranceSeconds} seconds away from now.`,
    };
  }
  const expected = sign(secret, id, timestamp, body);
  const matches = signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    return version === 'v1' && !!value && safeEqual(value, expected);
  });
  if (!matches) return { valid: false, reason: 'No signature of the message matches.' };
  return { valid: true, messageId: id, timestamp: new Date(seconds * 1000) };
}

/** Delay before the retry that follows failed attempt `n` (1-based); null when attempts are exhausted. */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000];

export function retryDelayMs(failedAttempt: number): number | null {
  return RETRY_SCHEDULE_MS[failedAttempt - 1] ?? null;
}
