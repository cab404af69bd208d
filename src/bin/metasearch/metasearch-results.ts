import {
  cleanText,
  MAX_SNIPPET_CHARS,
  MAX_TITLE_CHARS,
  MAX_WEB_RESULTS,
  publishedAt,
  resultUrlRefusal,
} from '../../common/text/web-result';

/** One result item as the tool answers it (the spec's web-search result item). */
export interface WebResultItem {
  title: string;
  url: string;
  snippet: string;
  published_at?: string;
}

export class UpstreamShapeError extends Error {
  override readonly name = 'UpstreamShapeError';
}

/** The first string among a result's candidate fields (SearXNG names the snippet `content` and the date `publishedDate`). */
function firstString(item: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * The metasearch answer's items, normalised: only public HTTPS URLs (the
 * others are dropped, as are items without a URL and repeats of one),
 * bounded titles and snippets without control characters, at most
 * min(maxResults, 8). Throws UpstreamShapeError when the answer is not a
 * JSON object with a `results` list.
 */
export function normaliseMetasearchAnswer(answer: unknown, maxResults: number): WebResultItem[] {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new UpstreamShapeError('The metasearch endpoint did not answer a JSON object.');
  }
  const results = (answer as Record<string, unknown>).results;
  if (!Array.isArray(results)) {
    throw new UpstreamShapeError('The metasearch endpoint answered a JSON object without a `results` list.');
  }
  const limit = Math.min(maxResults, MAX_WEB_RESULTS);
  const items: WebResultItem[] = [];
  const seen = new Set<string>();
  for (const entry of results) {
    if (items.length >= limit) break;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue;
    const record = entry as Record<string, unknown>;
    const rawUrl = firstString(record, ['url', 'link']);
    if (rawUrl === undefined || resultUrlRefusal(rawUrl.trim()) !== null) continue;
    const url = new URL(rawUrl.trim());
    url.hash = '';
    const href = url.toString();
    if (seen.has(href)) continue;
    seen.add(href);
    const title = cleanText(firstString(record, ['title']) ?? '', MAX_TITLE_CHARS) || url.hostname;
    const snippet = cleanText(
      firstString(record, ['content', 'snippet', 'description']) ?? '',
      MAX_SNIPPET_CHARS,
    );
    const date = publishedAt(record.publishedDate ?? record.published_at ?? record.pubdate);
    items.push({ title, url: href, snippet, ...(date ? { published_at: date } : {}) });
  }
  return items;
}
