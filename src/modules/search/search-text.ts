/**
 * Pure text handling of POST /search: how the caller's words become a
 * full-text query, and how PostgreSQL's headlines become safe snippets.
 */

/** The text-search configuration of every search document and query: no stemming, no stop words. */
export const SEARCH_CONFIG = 'simple';

/** Opening and closing highlight markers in snippets. */
export const HIGHLIGHT_OPEN = '<mark>';
export const HIGHLIGHT_CLOSE = '</mark>';

// ts_headline marks matches with these two characters; the source text is
// stripped of them first, so each one in a headline is a marker.
export const RAW_OPEN = '\u0002';
export const RAW_CLOSE = '\u0003';

/** Both halves of a keyword query, bound as parameters of the SQL in search.queries.ts. */
export interface KeywordQuery {
  /** Text for websearch_to_tsquery: quoted phrases, `or`, `-word`, as the caller wrote them. */
  websearch: string;
  /**
   * A to_tsquery prefix term (`'word':*`) for the last word, so that results
   * come while it is still being typed; null when the last word is not a plain word.
   */
  prefix: string | null;
}

const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * Splits a trimmed query into the part websearch_to_tsquery parses and a
 * prefix term for its last word. The last word becomes a prefix only when
 * it is plain letters and digits, not inside an open quote, not negated and
 * not joined by `or` (the operator would otherwise turn into AND). It is
 * bound as a parameter, and a plain word cannot break to_tsquery's syntax.
 */
export function keywordQuery(query: string): KeywordQuery {
  const words = query.trim().split(/\s+/u);
  const last = words[words.length - 1] ?? '';
  const before = words.slice(0, -1);
  const head = before.join(' ');
  const openQuote = (head.match(/"/g)?.length ?? 0) % 2 === 1;
  const joinedByOr = before.length > 0 && before[before.length - 1].toLowerCase() === 'or';
  if (!PLAIN_WORD.test(last) || last.toLowerCase() === 'or' || openQuote || joinedByOr) {
    return { websearch: query.trim(), prefix: null };
  }
  return { websearch: head, prefix: `'${last}':*` };
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * A headline from ts_headline (matches between RAW_OPEN and RAW_CLOSE) as
 * HTML that is safe to render: every character of the source escaped, then
 * the markers turned into `<mark>` and `</mark>`. Whitespace runs (newlines
 * included) become one space.
 */
export function renderSnippet(headline: string): string {
  return escapeHtml(headline)
    .replace(/\s+/gu, ' ')
    .trim()
    .replaceAll(RAW_OPEN, HIGHLIGHT_OPEN)
    .replaceAll(RAW_CLOSE, HIGHLIGHT_CLOSE);
}
