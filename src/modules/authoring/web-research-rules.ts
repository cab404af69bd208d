import { createHash } from 'node:crypto';
import {
  cleanText,
  MAX_SNIPPET_CHARS,
  MAX_TITLE_CHARS,
  MAX_WEB_RESULTS,
  publishedAt,
  resultUrlRefusal,
} from '../../common/text/web-result';
import { redact } from '../ai/guardrails';

/** The facade's name: its AI log feature and workflow-run feature. */
export const WEB_SEARCH_FEATURE = 'pipeline_authoring_web_search';
/** Successful distinct live calls one authoring task may make (the spec's quota). */
export const MAX_CALLS_PER_TASK = 6;
/** Result items per call (the spec's limit). */
export const MAX_RESULTS_PER_CALL = MAX_WEB_RESULTS;
/** A tool answer larger than this (as JSON, in bytes) is refused whole. */
export const MAX_TOOL_OUTPUT_BYTES = 256 * 1024;
/** How long a consent interaction waits for a decision, and how long an approval (its grant) lasts. */
export const CONSENT_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface SanitisedQuery {
  /** What is sent and stored: Unicode NFKC, invisible characters removed, whitespace collapsed and trimmed. */
  query: string;
  /** The reuse key's digest: sha256 of the query case-folded. */
  keyHash: string;
}

const QUERY_MIN_CHARS = 3;
const QUERY_MAX_CHARS = 500;
// scheme://user@host or scheme://user:password@host
const URL_USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i;
// Credentials passed in a result link's query string (signed or keyed URLs).
const URL_SECRET_PARAM =
  /[?&](?:api[_-]?key|key|token|access[_-]?token|auth|secret|password|passwd|sig|signature)=[^&]/i;

/** What kinds of personal or secret data a text holds, by the AI gateway's own detectors. */
function sensitiveKinds(text: string): string[] {
  const { counts } = redact(text);
  const kinds: string[] = [];
  if (URL_USERINFO.test(text)) kinds.push('credentials in a URL');
  if (counts.redact_secret) kinds.push('a secret-looking token (key, token, password or private key)');
  if (counts.redact_email) kinds.push('an email address');
  if (counts.redact_phone) kinds.push('a phone number');
  if (counts.redact_card) kinds.push('a payment card number');
  if (counts.redact_iban) kinds.push('a bank account number');
  return kinds;
}

/**
 * The query as the facade sends, stores and reuses it, or why it is refused.
 * A query carrying credentials, a secret-looking token or personal data
 * (email, phone, card, IBAN) is refused outright, never sent to the public
 * web and never stored; the refusal names the kind, not the value.
 */
export function sanitiseQuery(
  raw: string,
): { ok: true; value: SanitisedQuery } | { ok: false; reason: string } {
  const query = cleanText(raw.normalize('NFKC'), Number.MAX_SAFE_INTEGER);
  const length = Array.from(query).length;
  if (length < QUERY_MIN_CHARS || length > QUERY_MAX_CHARS) {
    return {
      ok: false,
      reason: `The query must be ${QUERY_MIN_CHARS} to ${QUERY_MAX_CHARS} characters once whitespace and control characters are removed.`,
    };
  }
  const kinds = sensitiveKinds(query);
  if (kinds.length > 0) {
    return {
      ok: false,
      reason: `The query looks like it contains ${kinds.join(' and ')}; it was not sent and not stored. Remove it and search again.`,
    };
  }
  return { ok: true, value: { query, keyHash: queryKeyHash(query) } };
}

/** The digest two queries share when they differ only in case and whitespace. */
export function queryKeyHash(sanitised: string): string {
  return createHash('sha256').update(sanitised.toLowerCase(), 'utf8').digest('hex');
}

/** A result item as the facade answers and stores it. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
  published_at?: string;
  rank: number;
  /** The URL's host name, lowercased, without a leading `www.`. */
  domain: string;
}

export interface DroppedCounts {
  /** Private, loopback, link-local, non-HTTPS, credentialed or over-long URLs. */
  unsafe_url: number;
  /** Items carrying a secret-looking token. */
  sensitive: number;
  /** Items that are not objects or have no URL string. */
  malformed: number;
  /** Repeats of a URL already kept. */
  duplicate: number;
}

export type OutputCheck =
  | { ok: true; results: WebSearchResult[]; dropped: DroppedCounts; redactions: number }
  | { ok: false; reason: string };

function domainOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

/**
 * Validates and normalises a web-search tool's answer. Refused whole: output
 * that is not a JSON object with a `results` array, or larger than 256 KB.
 * Dropped item by item (and counted): unsafe URLs, malformed items, items
 * carrying a secret-looking token, repeats. Personal data (emails, phone,
 * card and bank numbers) in titles and snippets is redacted, not kept.
 * Items get `rank` (1-based, after filtering) and `domain`; at most
 * min(maxResults, 8) are kept.
 */
export function checkToolOutput(output: unknown, maxResults: number): OutputCheck {
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(output) ?? '', 'utf8');
  } catch {
    return { ok: false, reason: 'The web-search tool answered something that is not JSON.' };
  }
  if (size > MAX_TOOL_OUTPUT_BYTES) {
    return {
      ok: false,
      reason: `The web-search tool answered ${size} bytes, more than the ${MAX_TOOL_OUTPUT_BYTES} allowed.`,
    };
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return { ok: false, reason: 'The web-search tool did not answer a JSON object.' };
  }
  const items = (output as Record<string, unknown>).results;
  if (!Array.isArray(items)) {
    return { ok: false, reason: 'The web-search tool answered without a `results` array.' };
  }
  const limit = Math.min(maxResults, MAX_RESULTS_PER_CALL);
  const dropped: DroppedCounts = { unsafe_url: 0, sensitive: 0, malformed: 0, duplicate: 0 };
  const results: WebSearchResult[] = [];
  const seen = new Set<string>();
  let redactions = 0;
  for (const item of items) {
    if (results.length >= limit) break;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      dropped.malformed++;
      continue;
    }
    const record = item as Record<string, unknown>;
    if (typeof record.url !== 'string') {
      dropped.malformed++;
      continue;
    }
    const rawUrl = record.url.trim();
    if (resultUrlRefusal(rawUrl) !== null) {
      dropped.unsafe_url++;
      continue;
    }
    const url = new URL(rawUrl);
    url.hash = '';
    const href = url.toString();
    const rawTitle = typeof record.title === 'string' ? cleanText(record.title, MAX_TITLE_CHARS) : '';
    const rawSnippet = typeof record.snippet === 'string' ? cleanText(record.snippet, MAX_SNIPPET_CHARS) : '';
    const title = redact(rawTitle);
    const snippet = redact(rawSnippet);
    if (title.counts.redact_secret || snippet.counts.redact_secret || URL_SECRET_PARAM.test(href)) {
      dropped.sensitive++;
      continue;
    }
    if (seen.has(href)) {
      dropped.duplicate++;
      continue;
    }
    seen.add(href);
    redactions += (title.text !== rawTitle ? 1 : 0) + (snippet.text !== rawSnippet ? 1 : 0);
    const date = publishedAt(record.published_at);
    results.push({
      title: title.text || url.hostname,
      url: href,
      snippet: snippet.text,
      ...(date ? { published_at: date } : {}),
      rank: results.length + 1,
      domain: domainOf(url),
    });
  }
  return { ok: true, results, dropped, redactions };
}
