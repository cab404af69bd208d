// Tool-provider benchmark on real PostgreSQL with a real MCP stdio server (test/support/mcp/tool-server.mjs):
//  - POST /admin/ai/tool-providers/{id}/discover of a provider listing 200 tools (4 tools/list pages),
//    served by the built app: a first discovery (200 inserts) and rediscoveries (no change),
//    each run several times (target: under 2 s, median and max reported);
//  - the web_search call through WebSearchReadinessService.requireReady + WebSearchCallService.call (on the warm
//    session) in this process, against the same server called directly with the SDK client:
//    overhead = service time - direct time, p50/p99.
//
//   npm run bench -- tool-providers     (builds first)
//   BENCH_TOOL_RUNS=3 BENCH_TOOL_CALLS=200 node bench/tool-providers.bench.mjs   (a quick check)
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const require = createRequire(import.meta.url);
const RUNS = Number(process.env.BENCH_TOOL_RUNS ?? 7);
const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 1000);
const WARMUP = 100;
const DB = 'verity_bench_tools';
const SERVER_SCRIPT = 'test/support/mcp/tool-server.mjs';
// The server lists web_search, describe_space and write_note besides its fillers.
const TOOL_ENV = { MCP_TEST_TOOL_COUNT: '197', MCP_TEST_PAGE_SIZE: '50' };

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (v) => v.toFixed(2).padStart(8);

async function api(base, token, method, path, body) {
  const res = await fetch(`${base}/api/v1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function timeDiscovery(base, token, id) {
  const started = process.hrtime.bigint();
  const result = await api(base, token, 'POST', `/admin/ai/tool-providers/${id}/discover`);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.tool_count !== 200) throw new Error(`expected 200 tools, got ${JSON.stringify(result)}`);
  return { elapsed, result };
}

function summary(label, times) {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${label.padEnd(44)} runs ${times.length}  median ${ms(median)} ms  max ${ms(sorted.at(-1))} ms  (each: ${times.map((t) => t.toFixed(0)).join(', ')})`,
  );
  return { median, max: sorted.at(-1) };
}

async function discoveries(base, token) {
  const fresh = [];
  let providerId = null;
  for (let i = 0; i < RUNS; i++) {
    const provider = await api(base, token, 'POST', '/admin/ai/tool-providers/', {
      slug: `bench-${i}-${Date.now()}`,
      name: 'Bench tools',
      command_argv: ['node', SERVER_SCRIPT],
      env: TOOL_ENV,
      tool_overrides: { web_search: { capability_id: 'web_search', scope_types: ['public_web'] } },
    });
    const { elapsed, result } = await timeDiscovery(base, token, provider.id);
    if (result.tools_added !== 200) throw new Error(`expected 200 added, got ${JSON.stringify(result)}`);
    fresh.push(elapsed);
    providerId = provider.id;
  }
  const again = [];
  for (let i = 0; i < RUNS; i++) again.push((await timeDiscovery(base, token, providerId)).elapsed);
  return {
    providerId,
    first: summary('discover 200 tools, first time (200 added)', fresh),
    repeat: summary('discover 200 tools again (no change)', again),
  };
}

/** The same tool called straight through the SDK client: the tool's own time plus stdio. */
async function directCalls() {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [SERVER_SCRIPT],
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...TOOL_ENV },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const times = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const started = process.hrtime.bigint();
    await client.callTool({ name: 'web_search', arguments: { query: `query ${i % 50}`, max_results: 8 } });
    if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await client.close();
  return times;
}

async function serviceCalls(url, spaceId) {
  const { createApp } = require(join(ROOT, 'dist', 'app.factory.js'));
  const { loadConfig } = require(join(ROOT, 'dist', 'config', 'app.config.js'));
  const { WebSearchReadinessService } = require(
    join(ROOT, 'dist', 'modules', 'tool-providers', 'web-search-readiness.service.js'),
  );
  const { WebSearchCallService } = require(
    join(ROOT, 'dist', 'modules', 'tool-providers', 'web-search-call.service.js'),
  );
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bench-tools-')),
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'false',
    PATH: process.env.PATH,
  });
  const app = await createApp({ config, database: { url, poolSize: 4 }, migrationsRun: true });
  await app.init();
  const readiness = app.get(WebSearchReadinessService);
  const caller = app.get(WebSearchCallService);
  const times = [];
  try {
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const started = process.hrtime.bigint();
      const ready = await readiness.requireReady(spaceId);
      await caller.call(ready, { query: `query ${i % 50}`, max_results: 8 });
      if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    await app.close();
  }
  return times;
}

async function main() {
  const { url, client } = await scratchDatabase(DB);
  const server = await startProcess({
    env: { DATABASE_URL: url, JWT_SECRET: 'bench-secret-bench-secret-bench-secret', ACCESS_LOG: 'false' },
  });
  let discovery;
  let spaceId;
  try {
    const email = `bench-tools-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    // The first account may make itself superadmin (bootstrap).
    const res = await fetch(`${server.base}/api/v1.0/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, first_name: 'Bench', last_name: 'Admin', is_superadmin: true }),
    });
    if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
    const token = await signIn(server.base, email, password);
    discovery = await discoveries(server.base, token);

    const space = await api(server.base, token, 'POST', '/spaces', {
      name: 'Bench tools',
      slug: `bench-tools-${Date.now()}`,
    });
    spaceId = space.id;
    await api(
      server.base,
      token,
      'PUT',
      `/spaces/${space.slug}/ai/tool-providers/${discovery.providerId}/enablement`,
      {
        enabled: true,
      },
    );
    const tools = await api(
      server.base,
      token,
      'GET',
      `/admin/ai/tool-providers/${discovery.providerId}/tools`,
    );
    const search = tools.find((t) => t.tool_name === 'web_search');
    const bound = await api(
      server.base,
      token,
      'PUT',
      `/spaces/${space.slug}/ai/tool-capabilities/web_search`,
      {
        provider_tool_id: search.id,
      },
    );
    if (!bound.healthy) throw new Error(`binding not healthy: ${bound.readiness_errors.join('; ')}`);
  } finally {
    await server.stop();
  }
  try {
    const direct = await directCalls();
    const service = await serviceCalls(url, spaceId);
    const d50 = pct(direct, 50);
    const d99 = pct(direct, 99);
    const s50 = pct(service, 50);
    const s99 = pct(service, 99);
    console.log(
      `web_search direct SDK call (tool + stdio)          p50 ${ms(d50)} ms  p99 ${ms(d99)} ms  (${CALLS} calls)`,
    );
    console.log(
      `web_search via requireReady + call                 p50 ${ms(s50)} ms  p99 ${ms(s99)} ms  (${CALLS} calls)`,
    );
    console.log(
      `service overhead                                   p50 ${ms(s50 - d50)} ms  p99 ${ms(s99 - d99)} ms`,
    );
    console.log(
      `targets: discovery of 200 tools < 2000 ms: first max ${discovery.first.max.toFixed(0)} ms, again max ${discovery.repeat.max.toFixed(0)} ms`,
    );
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
