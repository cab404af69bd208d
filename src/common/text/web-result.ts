import { urlRefusal } from '../../platform/outbound-http/outbound-url-policy';

/** The longest title a web-search result item keeps, in characters. */
export const MAX_TITLE_CHARS = 300;
/** The longest snippet a web-search result item keeps, in characters. */
export const MAX_SNIPPET_CHARS = 1000;
/** Result URLs longer than this are dropped rather than cut (a cut URL points elsewhere). */
export const MAX_URL_CHARS = 2048;
/** At most this many result items per web-search call (the spec's limit). */
export const MAX_WEB_RESULTS = 8;

// C0 and C1 controls, DEL, zero-width and bidirectional formatting characters:
// invisible in a UI, they can hide or reorder text that a reader or a model sees.
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
// A UTF-16 half without its pair has no UTF-8 encoding (PostgreSQL would refuse the row).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text a result item may show: invisible characters removed, whitespace collapsed, at most `maxChars` code points. */
export function cleanText(value: string, maxChars: number): string {
  const text = value.replace(INVISIBLE, ' ').replace(LONE_SURROGATE, '').replace(/\s+/g, ' ').trim();
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : `${chars.slice(0, maxChars - 1).join('')}…`;
}

/** Null when `raw` is a public HTTPS URL a result may link to, else why not. */
export function resultUrlRefusal(raw: string): string | null {
  if (raw.length > MAX_URL_CHARS) return `it is longer than ${MAX_URL_CHARS} characters`;
  // Never relaxed by ALLOW_PRIVATE_NETWORK_TARGETS: results are shown to people and models, not called by us.
  // A fragment never leaves the browser, so a link may keep one: the host rules apply to the rest.
  return urlRefusal(raw.replace(/#.*$/s, ''), { allowPrivate: false, plainHttp: 'never' });
}

/** An ISO 8601 UTC timestamp for a date a result carries, or undefined when it has none that parses. */
export function publishedAt(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (typeof value === 'string' && (value.length > 64 || value.trim() === '')) return undefined;
  const date = new Date(value);
  const time = date.getTime();
  // Years 1 to 9999 only: anything else is not a publication date, and ISO output would grow a sign.
  if (Number.isNaN(time) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return undefined;
  return date.toISOString();
}
