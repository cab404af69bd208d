#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readAdapterConfig } from './metasearch/adapter-config';
import { createMetasearchServer } from './metasearch/metasearch-server';

/*
 * The bundled web-search adapter: an MCP stdio server for a self-hosted
 * metasearch JSON endpoint (`verity-metasearch-mcp`). stdout carries the
 * protocol, so diagnostics go to stderr, and they never include the key.
 */
async function main(): Promise<void> {
  const config = readAdapterConfig(process.env);
  if (!config.ok) {
    for (const error of config.errors) console.error(`verity-metasearch-mcp: ${error}`);
  }
  await createMetasearchServer(config).connect(new StdioServerTransport());
}

main().catch((error: unknown) => {
  console.error(
    `verity-metasearch-mcp: could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
