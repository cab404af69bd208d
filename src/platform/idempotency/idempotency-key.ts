import { createHash } from 'node:crypto';
import type { StoredAnswer } from '../../common/errors/ready-answer';

/** 1 to 255 printable ASCII characters (space to tilde), as a UUID or any client-made token is. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The key as given, or null when it is not 1-255 printable ASCII characters (after trimming spaces around it). */
export function parseIdempotencyKey(header: string | string[]): string | null {
  if (Array.isArray(header)) return null;
  const key = header.trim();
  return KEY_PATTERN.test(key) ? key : null;
}

/** JSON with object keys sorted, so that the order of fields in a body does not matter. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** What makes two requests "the same" for a key: method, path with query, and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** What a replay sends back: the first response's status, kept headers and body bytes. */
export type StoredResponse = StoredAnswer;
