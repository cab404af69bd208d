import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque, URL-safe random token with an optional recognisable prefix. */
export function randomToken(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/** Tokens are stored as their SHA-256: they carry enough entropy that no slow hash is needed. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
