import { createServer, IncomingHttpHeaders, Server } from 'node:http';

/**
 * A real local metasearch endpoint for tests, answering like SearXNG's
 * `/search?format=json`: `{query, number_of_results, results: [{title, url,
 * content, publishedDate, engine}]}`. It records every request (path, query
 * parameters, headers) so tests can assert what the adapter sent, and it
 * misbehaves on demand: set `mode`, or start the query with `mode:<name> `
 * for one request.
 */
export const METASEARCH_MODES = [
  /** `count` (default 10) public HTTPS results derived from the query. */
  'normal',
  /** A body past 1 MB, streamed without a Content-Length. */
  'oversized',
  /** A Content-Length past 1 MB declared up front. */
  'oversized-declared',
  /** HTML instead of JSON. */
  'non-json',
  /** A JSON object without `results`. */
  'missing-results',
  /** A JSON array rather than an object. */
  'array',
  /** Private, loopback, link-local, IP-literal, plain-http and credentialed URLs, plus two public ones. */
  'private-urls',
  /** Titles and snippets with control characters, bidi overrides and excessive length. */
  'dirty',
  /** Answers after `delayMs`. */
  'slow',
  /** HTTP 503. */
  'error',
  /** A result whose snippet carries an API-key-looking token, and one that is clean. */
  'sensitive',
] as const;
export type MetasearchMode = (typeof METASEARCH_MODES)[number];

export interface MetasearchRequest {
  path: string;
  params: Record<string, string[]>;
  headers: IncomingHttpHeaders;
  /** The `q` parameter as received. */
  q: string | null;
}

export interface MetasearchServer {
  /** `http://127.0.0.1:<port>/search?language=en&q=ignored&format=html`: configured parameters the adapter must keep (`language`) or replace (`q`, `format`). */
  endpoint: string;
  requests: MetasearchRequest[];
  /** Milliseconds each request spent in this server. */
  handledMs: number[];
  mode: MetasearchMode;
  /** How many results `normal` answers. */
  count: number;
  delayMs: number;
  reset(): void;
  close(): Promise<void>;
}

function slugOf(query: string): string {
  return (
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'q'
  );
}

function normalResults(query: string, count: number): unknown[] {
  const slug = slugOf(query);
  return Array.from({ length: count }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://site${i + 1}.example.com/${slug}/${i + 1}`,
    content: `Snippet ${i + 1} about ${query}.`,
    publishedDate: i % 2 === 0 ? `2026-0${(i % 9) + 1}-15T10:00:00` : null,
    engine: 'duckduckgo',
  }));
}

function body(
  mode: MetasearchMode,
  query: string,
  count: number,
): { status: number; type: string; text: string } {
  const json = (value: unknown) => ({ status: 200, type: 'application/json', text: JSON.stringify(value) });
  switch (mode) {
    case 'non-json':
      return { status: 200, type: 'text/html', text: '<html><body>Too many requests</body></html>' };
    case 'missing-results':
      return json({ query, answers: [], infoboxes: [] });
    case 'array':
      return json([{ title: 'x', url: 'https://example.com/' }]);
    case 'error':
      return { status: 503, type: 'text/plain', text: 'upstream engines failed' };
    case 'private-urls':
      return json({
        query,
        results: [
          { title: 'Loopback', url: 'https://127.0.0.1/admin', content: 'a' },
          { title: 'Private', url: 'https://10.1.2.3/', content: 'b' },
          { title: 'Metadata', url: 'https://169.254.169.254/latest/meta-data/', content: 'c' },
          { title: 'IPv6 loopback', url: 'https://[::1]/', content: 'd' },
          { title: 'Plain http', url: 'http://plain.example.com/page', content: 'e' },
          { title: 'Localhost', url: 'https://localhost/x', content: 'f' },
          { title: 'Credentials', url: 'https://user:pw@creds.example.com/', content: 'g' },
          { title: 'FTP', url: 'ftp://files.example.com/', content: 'h' },
          { title: 'No URL', content: 'i' },
          { title: 'Public one', url: 'https://public-one.example.org/a', content: 'kept' },
          { title: 'Public two', url: 'https://public-two.example.org/b', content: 'kept too' },
        ],
      });
    case 'dirty':
      return json({
        query,
        results: [
          {
            title: `Bad\u0000title\u0007with\u202econtrols\u200b and   spaces`,
            url: 'https://dirty.example.com/1',
            content: `line1\r\nline2\u0085\u001b[31m${'x'.repeat(5000)}`,
            publishedDate: 'not a date',
          },
          {
            title: 'T'.repeat(1000),
            url: 'https://dirty.example.com/2',
            content: 'ok',
            publishedDate: 1767225600000,
          },
          { title: 'Duplicate', url: 'https://dirty.example.com/1#again', content: 'same page' },
          { title: '', url: 'https://untitled.example.com/', content: 'no title' },
        ],
      });
    case 'sensitive':
      return json({
        query,
        results: [
          {
            title: 'Leaked configuration',
            url: 'https://leak.example.com/config',
            content: 'api_key=sk-live-4eC39HqLyjWDarjtT1zdp7dc9a8b7c6d5e4f',
          },
          { title: 'Clean page', url: 'https://clean.example.com/', content: 'Nothing secret here.' },
        ],
      });
    default:
      return json({ query, number_of_results: count, results: normalResults(query, count) });
  }
}

export async function startMetasearchServer(): Promise<MetasearchServer> {
  const state: MetasearchServer = {
    endpoint: '',
    requests: [],
    handledMs: [],
    mode: 'normal',
    count: 10,
    delayMs: 0,
    reset() {
      state.requests.length = 0;
      state.handledMs.length = 0;
      state.mode = 'normal';
      state.count = 10;
      state.delayMs = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const params: Record<string, string[]> = {};
    for (const [key, value] of url.searchParams) (params[key] ??= []).push(value);
    const q = url.searchParams.get('q');
    state.requests.push({ path: url.pathname, params, headers: req.headers, q });
    let query = q ?? '';
    let mode = state.mode;
    const override = /^mode:([a-z-]+)\s+(.*)$/s.exec(query);
    if (override && (METASEARCH_MODES as readonly string[]).includes(override[1])) {
      mode = override[1] as MetasearchMode;
      query = override[2];
    }
    const answer = () => {
      if (mode === 'oversized' || mode === 'oversized-declared') {
        const chunk = Buffer.alloc(64 * 1024, 'a');
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(mode === 'oversized-declared' ? { 'content-length': String(2 * 1024 * 1024) } : {}),
        });
        res.write('{"results":[],"padding":"');
        // Up to 2 MB; the adapter should hang up after 1 MB, which ends the writes.
        let sent = 0;
        const pump = () => {
          while (sent < 32) {
            sent++;
            if (res.destroyed) return;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('"}');
        };
        res.on('error', () => undefined);
        pump();
        state.handledMs.push(performance.now() - started);
        return;
      }
      const { status, type, text } = body(mode, query, state.count);
      res.writeHead(status, { 'content-type': type });
      res.end(text);
      state.handledMs.push(performance.now() - started);
    };
    if (mode === 'slow' || state.delayMs > 0) setTimeout(answer, state.delayMs || 3000);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  state.endpoint = `http://127.0.0.1:${port}/search?language=en&q=ignored&format=html`;
  return state;
}
