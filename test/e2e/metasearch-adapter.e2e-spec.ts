import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildIfNeeded, ROOT } from '../support/server-process';
import { MetasearchServer, startMetasearchServer } from '../support/metasearch-server';

/*
 * The bundled adapter as an operator runs it: the built `verity-metasearch-mcp`
 * (dist/bin/metasearch-mcp.js) spawned over stdio by the MCP SDK's client,
 * talking to a real local metasearch endpoint.
 */
const ADAPTER = join(ROOT, 'dist', 'bin', 'metasearch-mcp.js');
const API_KEY = 'ms-key-0123456789abcdef';

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: { results: Array<Record<string, unknown>> };
}

let metasearch: MetasearchServer;
const clients: Client[] = [];

async function adapter(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ADAPTER],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'adapter-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

const localEnv = () => ({
  VERITY_WEB_SEARCH_ENDPOINT: metasearch.endpoint,
  ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
});

async function search(client: Client, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name: 'web_search', arguments: args })) as unknown as ToolAnswer;
}

beforeAll(async () => {
  buildIfNeeded();
  metasearch = await startMetasearchServer();
}, 120_000);

afterEach(() => metasearch.reset());

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await metasearch.close();
});

describe('bundled metasearch adapter (verity-metasearch-mcp)', () => {
  it('lists exactly one read-only tool whose input schema is the spec schema, nothing more', async () => {
    const { client } = await adapter(localEnv());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['web_search']);
    expect(tools[0].inputSchema).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 3, maxLength: 500 },
        max_results: { type: 'integer', minimum: 1, maximum: 8, default: 8 },
      },
      required: ['query'],
      additionalProperties: false,
    });
    expect(tools[0].annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('forces q and format=json, keeps other endpoint parameters, sends the key only as Bearer and the user agent', async () => {
    const { client, stderr } = await adapter({
      ...localEnv(),
      VERITY_WEB_SEARCH_API_KEY: API_KEY,
      VERITY_WEB_SEARCH_USER_AGENT: 'AcmeGovernanceBot/2.0',
    });
    const answer = await search(client, { query: 'data mesh governance' });
    expect(answer.isError).toBeFalsy();
    expect(metasearch.requests).toHaveLength(1);
    const [request] = metasearch.requests;
    expect(request.path).toBe('/search');
    expect(request.params).toEqual({ language: ['en'], q: ['data mesh governance'], format: ['json'] });
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers['user-agent']).toBe('AcmeGovernanceBot/2.0');
    // The key is nowhere but the Authorization header.
    expect(JSON.stringify(request.params)).not.toContain(API_KEY);
    expect(JSON.stringify(answer)).not.toContain(API_KEY);
    expect(stderr()).not.toContain(API_KEY);
  });

  it('answers at most 8 normalised items (default 8), in structuredContent and as JSON text', async () => {
    const { client } = await adapter(localEnv());
    const answer = await search(client, { query: 'lineage tools' });
    const results = answer.structuredContent!.results;
    expect(results).toHaveLength(8);
    expect(JSON.parse(answer.content[0].text)).toEqual(answer.structuredContent);
    expect(results[0]).toEqual({
      title: 'Result 1 for lineage tools',
      url: 'https://site1.example.com/lineage-tools/1',
      snippet: 'Snippet 1 about lineage tools.',
      published_at: '2026-01-15T10:00:00.000Z',
    });
    expect(results[1]).not.toHaveProperty('published_at');
    for (const item of results)
      expect(Object.keys(item).sort()).toEqual(expect.arrayContaining(['snippet', 'title', 'url']));

    const three = await search(client, { query: 'lineage tools', max_results: 3 });
    expect(three.structuredContent!.results.map((r) => r.url)).toEqual(results.slice(0, 3).map((r) => r.url));
  });

  it('sends no Authorization header without a key, and its own user agent by default', async () => {
    const { client } = await adapter(localEnv());
    await search(client, { query: 'catalog search' });
    expect(metasearch.requests[0].headers.authorization).toBeUndefined();
    expect(metasearch.requests[0].headers['user-agent']).toMatch(/^Verity-WebSearch\//);
  });

  it('keeps only public HTTPS result URLs', async () => {
    const { client } = await adapter(localEnv());
    const answer = await search(client, { query: 'mode:private-urls anything' });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent!.results.map((r) => r.url)).toEqual([
      'https://public-one.example.org/a',
      'https://public-two.example.org/b',
    ]);
  });

  it('strips control and formatting characters, bounds titles and snippets, drops repeats and bad dates', async () => {
    const { client } = await adapter(localEnv());
    const { results } = (await search(client, { query: 'mode:dirty text' })).structuredContent!;
    expect(results).toHaveLength(3);
    expect(results[0].title).toBe('Bad title with controls and spaces');
    expect(results[0].snippet).toMatch(/^line1 line2 \[31mx+…$/);
    expect(Array.from(results[0].snippet as string).length).toBe(1000);
    expect(results[0]).not.toHaveProperty('published_at');
    expect(Array.from(results[1].title as string).length).toBe(300);
    expect(results[1].published_at).toBe('2026-01-01T00:00:00.000Z');
    expect(results[2]).toMatchObject({ title: 'untitled.example.com', url: 'https://untitled.example.com/' });
  });

  it.each([
    ['non-json', /did not answer JSON/],
    ['missing-results', /without a `results` list/],
    ['array', /did not answer a JSON object/],
    ['error', /answered HTTP 503/],
    ['oversized', /larger than 1 MB/],
    ['oversized-declared', /larger than 1 MB/],
  ])('answers a clean tool error for a %s answer', async (mode, message) => {
    const { client } = await adapter(localEnv());
    const answer = await search(client, { query: `mode:${mode} query` });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(message);
  });

  it('gives up after VERITY_WEB_SEARCH_TIMEOUT_SECONDS', async () => {
    const { client } = await adapter({ ...localEnv(), VERITY_WEB_SEARCH_TIMEOUT_SECONDS: '1' });
    metasearch.delayMs = 2500;
    const started = Date.now();
    const answer = await search(client, { query: 'slow query' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(/did not answer within 1 s/);
    expect(Date.now() - started).toBeLessThan(2400);
  });

  it.each([
    ['a short query', { query: 'ab' }, /3 to 500/],
    ['a long query', { query: 'x'.repeat(501) }, /3 to 500/],
    ['max_results 9', { query: 'valid query', max_results: 9 }, /1 to 8/],
    ['a fractional max_results', { query: 'valid query', max_results: 2.5 }, /1 to 8/],
    ['an extra argument', { query: 'valid query', extra: true }, /Unknown argument/],
    ['no query', { max_results: 3 }, /`query` is required/],
  ])('refuses arguments outside the schema: %s', async (_label, args, message) => {
    const { client } = await adapter(localEnv());
    const answer = await search(client, args);
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(message);
    expect(metasearch.requests).toHaveLength(0);
  });

  it.each([
    [{ VERITY_WEB_SEARCH_ENDPOINT: '' }, /VERITY_WEB_SEARCH_ENDPOINT is required/],
    [{ VERITY_WEB_SEARCH_ENDPOINT: 'http://user:secret@127.0.0.1:9/search' }, /must not contain credentials/],
    [{ VERITY_WEB_SEARCH_ENDPOINT: 'http://127.0.0.1:9/search#frag' }, /must not contain a fragment/],
    [{ VERITY_WEB_SEARCH_ENDPOINT: 'ftp://127.0.0.1/search' }, /must be an http\(s\) URL/],
    [{ VERITY_WEB_SEARCH_TIMEOUT_SECONDS: '0' }, /from 1 to 30/],
    [{ VERITY_WEB_SEARCH_TIMEOUT_SECONDS: '31' }, /from 1 to 30/],
    [{ VERITY_WEB_SEARCH_TIMEOUT_SECONDS: 'ten' }, /from 1 to 30/],
  ])('refuses the configuration %j at start and every call says why', async (override, message) => {
    const { client, stderr } = await adapter({ ...localEnv(), ...override });
    // Still listed, so discovery shows the tool; calls fail closed.
    expect((await client.listTools()).tools).toHaveLength(1);
    const answer = await search(client, { query: 'anything at all' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(/misconfigured/);
    expect(answer.content[0].text).toMatch(message);
    expect(stderr()).toMatch(message);
    expect(stderr()).not.toContain('secret');
    expect(metasearch.requests).toHaveLength(0);
  });

  it('refuses a loopback or plain-http endpoint unless ALLOW_PRIVATE_NETWORK_TARGETS is true', async () => {
    const { client } = await adapter({ VERITY_WEB_SEARCH_ENDPOINT: metasearch.endpoint });
    const answer = await search(client, { query: 'anything at all' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(/ALLOW_PRIVATE_NETWORK_TARGETS=true/);
    expect(metasearch.requests).toHaveLength(0);
  });

  it('refuses a link-local endpoint even with private targets allowed', async () => {
    const { client } = await adapter({
      VERITY_WEB_SEARCH_ENDPOINT: 'http://169.254.169.254/search',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    });
    const answer = await search(client, { query: 'anything at all' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(/linkLocal/);
  });

  it('reports an unreachable endpoint without echoing the request', async () => {
    const { client } = await adapter({
      VERITY_WEB_SEARCH_ENDPOINT: 'http://127.0.0.1:9/search',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      VERITY_WEB_SEARCH_API_KEY: API_KEY,
    });
    const answer = await search(client, { query: 'anything at all' });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toMatch(/could not be reached \(ECONNREFUSED\)/);
    expect(answer.content[0].text).not.toContain(API_KEY);
  });
});
