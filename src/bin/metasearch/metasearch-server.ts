import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigResult, searchUrl } from './adapter-config';
import { fetchMetasearch, MetasearchError } from './metasearch-fetch';
import { normaliseMetasearchAnswer, UpstreamShapeError } from './metasearch-results';
import { parseWebSearchArguments, WEB_SEARCH_INPUT_SCHEMA, WEB_SEARCH_TOOL_NAME } from './web-search-tool';

export const ADAPTER_NAME = 'verity-metasearch';
export const ADAPTER_VERSION = '1.0.0';

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * The MCP server of the bundled adapter: one read-only tool, `web_search`.
 * A refused configuration still lets the tool be listed (so discovery shows
 * it) but every call answers the configuration errors.
 */
export function createMetasearchServer(configResult: ConfigResult): Server {
  const server = new Server(
    { name: ADAPTER_NAME, version: ADAPTER_VERSION },
    { capabilities: { tools: {} } },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: WEB_SEARCH_TOOL_NAME,
        title: 'Web search',
        description:
          'Searches the public web through the configured self-hosted metasearch endpoint. Answers ' +
          '`{results: [{title, url, snippet, published_at?}]}`: at most `max_results` (1 to 8) items, public HTTPS links only.',
        inputSchema: WEB_SEARCH_INPUT_SCHEMA as unknown as { type: 'object'; [key: string]: unknown },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true,
        },
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    if (request.params.name !== WEB_SEARCH_TOOL_NAME)
      return toolError(`Unknown tool: ${request.params.name}.`);
    if (!configResult.ok) {
      return toolError(`The metasearch adapter is misconfigured: ${configResult.errors.join(' ')}`);
    }
    const parsed = parseWebSearchArguments(request.params.arguments ?? {});
    if (!parsed.ok) return toolError(parsed.error);
    const { config } = configResult;
    try {
      const answer = await fetchMetasearch(searchUrl(config.endpoint, parsed.args.query), config);
      const output = { results: normaliseMetasearchAnswer(answer, parsed.args.maxResults) };
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    } catch (error) {
      if (error instanceof MetasearchError || error instanceof UpstreamShapeError)
        return toolError(error.message);
      return toolError('The metasearch search failed unexpectedly.');
    }
  });

  return server;
}
