// An MCP stdio server whose search tool's schema is close to, but not, the web_search contract:
// max_results may reach 10 and extra properties are allowed.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const tools = [
  {
    name: 'web_search',
    description: 'Searches the web, loosely.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 3, maxLength: 500 },
        max_results: { type: 'integer', minimum: 1, maximum: 10, default: 8 },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  },
];
const server = new Server({ name: 'verity-test-loose', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async () => ({
  structuredContent: { results: [] },
  content: [{ type: 'text', text: '{"results":[]}' }],
}));
await server.connect(new StdioServerTransport());
