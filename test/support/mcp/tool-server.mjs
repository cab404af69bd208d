// A well-behaved MCP stdio server for the tool-provider tests and bench.
// Environment (all optional):
//   MCP_TEST_TOOLSET     "v1" (default), "v2" (drops write_note, adds lookup_term, rewords describe_space)
//                        or "bare" (describe_space only)
//   MCP_TEST_TOOL_COUNT  extra filler tools, named filler_0001...
//   MCP_TEST_PAGE_SIZE   tools per tools/list page (default 50), so clients must follow cursors
//   MCP_TEST_ENV_DUMP    a file this server writes its whole environment to (JSON) at start
//   MCP_TEST_START_LOG   a file this server appends a line (its pid) to at start, to count starts
//   MCP_TEST_FAIL_FILE   while this file exists, every request makes the server exit at once
//   MCP_TEST_SEARCH_DELAY_MS  how long web_search takes
//   MCP_TEST_LEAK_VAR    tools/list fails with an error quoting this variable's value, which also
//                        goes to stderr (a careless server)
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const env = process.env;
if (env.MCP_TEST_ENV_DUMP) writeFileSync(env.MCP_TEST_ENV_DUMP, JSON.stringify(env));
if (env.MCP_TEST_START_LOG) appendFileSync(env.MCP_TEST_START_LOG, `${process.pid}\n`);
const toolset = env.MCP_TEST_TOOLSET ?? 'v1';
const pageSize = Number(env.MCP_TEST_PAGE_SIZE ?? 50);
const searchDelay = Number(env.MCP_TEST_SEARCH_DELAY_MS ?? 0);

export const WEB_SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 3, maxLength: 500 },
    max_results: { type: 'integer', minimum: 1, maximum: 8, default: 8 },
  },
  required: ['query'],
  additionalProperties: false,
};

let tools = [
  {
    name: 'web_search',
    description: 'Searches the public web (canned results).',
    inputSchema: WEB_SEARCH_SCHEMA,
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  {
    name: 'describe_space',
    description: toolset === 'v2' ? 'Describes a space, reworded.' : 'Describes a space.',
    inputSchema: { type: 'object', properties: { space: { type: 'string' } }, required: ['space'] },
    annotations: { readOnlyHint: true },
  },
];
if (toolset === 'v2') {
  tools.push({
    name: 'lookup_term',
    description: 'Looks a glossary term up.',
    inputSchema: { type: 'object', properties: { term: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  });
} else {
  tools.push({
    name: 'write_note',
    description: 'Writes a note somewhere.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: { readOnlyHint: false, destructiveHint: false },
  });
}
if (toolset === 'bare') tools = tools.filter((tool) => tool.name === 'describe_space');
for (let i = 1; i <= Number(env.MCP_TEST_TOOL_COUNT ?? 0); i++) {
  tools.push({
    name: `filler_${String(i).padStart(4, '0')}`,
    description: `Filler tool number ${i}.`,
    inputSchema: { type: 'object', properties: { value: { type: 'string', maxLength: 100 } } },
    annotations: { readOnlyHint: true },
  });
}

const server = new Server({ name: 'verity-test-tools', version: '1.0.0' }, { capabilities: { tools: {} } });

function failIfAsked() {
  if (env.MCP_TEST_FAIL_FILE && existsSync(env.MCP_TEST_FAIL_FILE)) process.exit(7);
}

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  failIfAsked();
  if (env.MCP_TEST_LEAK_VAR) {
    process.stderr.write(`debug: using key ${env[env.MCP_TEST_LEAK_VAR]}\n`);
    throw new Error(`backend refused key ${env[env.MCP_TEST_LEAK_VAR]}`);
  }
  const start = Number(request.params?.cursor ?? 0);
  const page = tools.slice(start, start + pageSize);
  const next = start + pageSize < tools.length ? String(start + pageSize) : undefined;
  return { tools: page, ...(next ? { nextCursor: next } : {}) };
});

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  failIfAsked();
  const { name, arguments: args = {} } = request.params;
  if (name !== 'web_search') {
    return { isError: true, content: [{ type: 'text', text: `Tool ${name} is not callable here.` }] };
  }
  if (searchDelay) await new Promise((done) => setTimeout(done, searchDelay));
  const query = String(args.query ?? '');
  const max = Number(args.max_results ?? 8);
  if (query === 'fail please') {
    return { isError: true, content: [{ type: 'text', text: 'The search backend refused the query.' }] };
  }
  if (query === 'flood please') {
    return { content: [{ type: 'text', text: 'x'.repeat(2 * 1024 * 1024) }] };
  }
  if (query === 'hang please') await new Promise(() => {});
  const results = Array.from({ length: max }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://example.com/${i + 1}?q=${encodeURIComponent(query)}`,
    snippet: `Snippet ${i + 1}.`,
  }));
  const payload = { results, server_pid: process.pid, ...(query === 'environment please' ? { env } : {}) };
  if (query === 'text please') return { content: [{ type: 'text', text: JSON.stringify(payload) }] };
  return { structuredContent: payload, content: [{ type: 'text', text: JSON.stringify(payload) }] };
});

await server.connect(new StdioServerTransport());
