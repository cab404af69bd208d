import { MAX_WEB_RESULTS } from '../../common/text/web-result';

export const WEB_SEARCH_TOOL_NAME = 'web_search';

/**
 * The input schema of the tool, exactly the spec's compatible web-search
 * schema and nothing more (no `$schema`, no extra keywords), so the
 * capability check can compare it as it is.
 */
export const WEB_SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 3, maxLength: 500 },
    max_results: { type: 'integer', minimum: 1, maximum: 8, default: 8 },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

export interface WebSearchArguments {
  query: string;
  maxResults: number;
}

/** The arguments checked against the input schema (the SDK's low-level server does not), or why they fail it. */
export function parseWebSearchArguments(
  input: unknown,
): { ok: true; args: WebSearchArguments } | { ok: false; error: string } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: 'The arguments must be an object with `query` and optional `max_results`.' };
  }
  const record = input as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'query' && key !== 'max_results');
  if (unknown.length > 0) return { ok: false, error: `Unknown argument(s): ${unknown.join(', ')}.` };
  const { query, max_results: maxResults = MAX_WEB_RESULTS } = record;
  if (typeof query !== 'string') return { ok: false, error: '`query` is required and must be a string.' };
  // JSON Schema lengths count code points, not UTF-16 units.
  const length = Array.from(query).length;
  if (length < 3 || length > 500) return { ok: false, error: '`query` must be 3 to 500 characters long.' };
  if (query.trim() === '') return { ok: false, error: '`query` must contain more than spaces.' };
  if (typeof maxResults !== 'number' || !Number.isInteger(maxResults) || maxResults < 1 || maxResults > 8) {
    return { ok: false, error: '`max_results` must be an integer from 1 to 8.' };
  }
  return { ok: true, args: { query, maxResults } };
}
