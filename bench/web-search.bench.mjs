// Pipeline-authoring web-search benchmark on real PostgreSQL: live web searches through the
// facade (POST /spaces/{slug}/ai/authoring-tasks/{id}/web-search on the built server), with the
// bundled adapter (dist/bin/metasearch-mcp.js) registered, discovered and bound as a real provider,
// against a local metasearch endpoint in its own process.
//
// The adapter's own time is measured by calling a second adapter process directly through the MCP
// SDK's stdio client, interleaved with the facade calls (same kind of query, same endpoint):
// overhead = facade call - direct adapter call (target p99 < 20 ms). Every query is distinct so
// every call is live; the 6-calls-per-task quota is respected by spreading calls over many tasks.
// A GET of the task after each call is the baseline: what one authenticated request costs at that load.
//
//   npm run bench -- web-search      (builds first)
//   BENCH_WEB_SEARCH_CALLS=120 node bench/web-search.bench.mjs   (a quick check)
//   BENCH_WEB_SEARCH_SERVER=/elsewhere/dist/main.js node bench/web-search.bench.mjs   (another build)
//   BENCH_WEB_SEARCH_COMPARE=/elsewhere/dist/main.js node bench/web-search.bench.mjs
//     (that build beside this one, each on its own database, their calls alternating: on a machine
//     shared with other work, both see the same load, which runs one after the other do not)
//   BENCH_WEB_SEARCH_CPU_PROF=/tmp/prof node bench/web-search.bench.mjs   (the server runs under --cpu-prof)
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { freePort, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const CALLS = Number(process.env.BENCH_WEB_SEARCH_CALLS ?? 600);
const WARMUP = 30;
const PER_TASK = 6;

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (v) => v.toFixed(2).padStart(6);

async function startMetasearch() {
  const port = await freePort();
  const child = fork(join(ROOT, 'bench', 'metasearch-server.cjs'), [], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`metasearch server exited with ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}/search`,
    stop: () => new Promise((r) => (child.kill('SIGTERM'), child.once('exit', r))),
  };
}

/**
 * One built server on its own scratch database, with an account, a space and the adapter bound;
 * answers `search(i)` (one measured live search and its baseline read) and `stop()`.
 */
async function startTarget(label, script, database, adapterEnv) {
  const { url, client } = await scratchDatabase(database);
  const server = await startProcess({
    script,
    nodeArgs: process.env.BENCH_WEB_SEARCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WEB_SEARCH_CPU_PROF}`]
      : [],
    env: {
      DATABASE_URL: url,
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      ACCESS_LOG: 'false',
      // The operator's switch: the server passes it to the adapter, which searches a loopback endpoint.
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    },
  });
  const api = `${server.base}/api/v1.0`;
  const email = `bench-ws-${Date.now()}@example.test`;
  const password = 'bench-password-1';
  // The first account may make itself superadmin (bootstrap).
  const registered = await fetch(`${api}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, first_name: 'Bench', last_name: 'Admin', is_superadmin: true }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const token = await signIn(server.base, email, password);
  const call = async (method, path, body) => {
    const res = await fetch(api + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const expect = (res, status, what) => {
    if (res.status !== status) throw new Error(`${label} ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const space = expect(
    await call('POST', '/spaces', { name: 'Bench', slug: `bench-${Date.now()}` }),
    201,
    'space',
  );
  const provider = expect(
    await call('POST', '/admin/ai/tool-providers/', {
      slug: 'metasearch',
      name: 'Metasearch',
      command_argv: ['node', 'dist/bin/metasearch-mcp.js'],
      env: { VERITY_WEB_SEARCH_ENDPOINT: adapterEnv.VERITY_WEB_SEARCH_ENDPOINT },
      tool_overrides: { web_search: { scope_types: ['public_web'], capability_id: 'web_search' } },
    }),
    201,
    'provider',
  );
  expect(await call('POST', `/admin/ai/tool-providers/${provider.id}/discover`), 200, 'discover');
  const tools = expect(await call('GET', `/admin/ai/tool-providers/${provider.id}/tools`), 200, 'tools');
  const tool = tools.find((t) => t.tool_name === 'web_search');
  expect(
    await call('PUT', `/spaces/${space.slug}/ai/tool-providers/${provider.id}/enablement`, { enabled: true }),
    200,
    'enable',
  );
  expect(
    await call('PUT', `/spaces/${space.slug}/ai/tool-capabilities/web_search`, { provider_tool_id: tool.id }),
    200,
    'bind',
  );

  const tasksPath = `/spaces/${space.slug}/ai/authoring-tasks`;
  /** A task with an approved consent, ready for its 6 live calls. */
  const consentedTask = async () => {
    const task = expect(await call('POST', tasksPath, { title: 'bench' }), 201, 'task');
    const asked = expect(
      await call('POST', `${tasksPath}/${task.id}/web-search`, { query: 'consent probe' }),
      202,
      'consent',
    );
    expect(await call('POST', `/ai/consents/${asked.consent.id}/approve`), 200, 'approve');
    return task.id;
  };

  let taskId = null;
  return {
    label,
    /** The facade call's time, then the baseline read's. */
    async search(i, query) {
      if (i % PER_TASK === 0) taskId = await consentedTask();
      const started = performance.now();
      const res = await call('POST', `${tasksPath}/${taskId}/web-search`, { query });
      const total = performance.now() - started;
      if (res.status !== 200 || res.body.reused || res.body.results.length !== 8) {
        throw new Error(`${label} search ${i}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      // The same server's cheap space-scoped read at this moment's load: what any request costs here.
      const baselineStarted = performance.now();
      expect(await call('GET', `${tasksPath}/${taskId}`), 200, 'task read');
      return { total, baseline: performance.now() - baselineStarted };
    },
    async logs() {
      const { rows } = await client.query(
        `SELECT count(*)::int AS logs FROM ai_logs WHERE feature = 'pipeline_authoring_web_search' AND status = 'success'`,
      );
      return rows[0].logs;
    },
    async stop() {
      await server.stop();
      await client.end();
    },
  };
}

async function main() {
  const metasearch = await startMetasearch();
  const adapterEnv = {
    VERITY_WEB_SEARCH_ENDPOINT: metasearch.endpoint,
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  };
  const builds = [
    ['this build', process.env.BENCH_WEB_SEARCH_SERVER ?? join(ROOT, 'dist', 'main.js')],
    ...(process.env.BENCH_WEB_SEARCH_COMPARE
      ? [['compared build', process.env.BENCH_WEB_SEARCH_COMPARE]]
      : []),
  ];
  const targets = [];
  const direct = new Client({ name: 'bench', version: '1.0.0' });
  try {
    for (const [index, [label, script]] of builds.entries()) {
      targets.push(
        await startTarget(label, script, `verity_bench_web_search${index ? `_${index}` : ''}`, adapterEnv),
      );
    }
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'dist', 'bin', 'metasearch-mcp.js')],
        env: { PATH: process.env.PATH, ...adapterEnv },
      }),
    );
    const samples = targets.map(() => ({ totals: [], adapterTimes: [], baseline: [] }));
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const query = `bench query number ${i} about data governance`;
      // Alternate which build goes first, so neither always follows the other.
      const order = targets.map((_, k) => k);
      if (i % 2) order.reverse();
      for (const k of order) {
        const { total, baseline } = await targets[k].search(i, query);
        const directStarted = performance.now();
        const answer = await direct.callTool({ name: 'web_search', arguments: { query: `direct ${query}` } });
        const adapterTime = performance.now() - directStarted;
        if (answer.isError) throw new Error(`direct adapter call failed: ${JSON.stringify(answer)}`);
        if (i >= WARMUP) {
          samples[k].totals.push(total);
          samples[k].adapterTimes.push(adapterTime);
          samples[k].baseline.push(baseline);
        }
      }
    }
    for (const [k, target] of targets.entries()) {
      const { totals, adapterTimes, baseline } = samples[k];
      const overhead = totals.map((t, i) => t - adapterTimes[i]);
      console.log(
        `${target.label} (${builds[k][1]}): ${CALLS} live web searches measured (+${WARMUP} warm-up), ${await target.logs()} AI log rows`,
      );
      console.log(
        `  facade call total (HTTP)                     p50 ${ms(pct(totals, 50))} ms  p99 ${ms(pct(totals, 99))} ms`,
      );
      console.log(
        `  adapter's own time (direct SDK call)         p50 ${ms(pct(adapterTimes, 50))} ms  p99 ${ms(pct(adapterTimes, 99))} ms`,
      );
      console.log(
        `  facade overhead (total - adapter)            p50 ${ms(pct(overhead, 50))} ms  p99 ${ms(pct(overhead, 99))} ms  (target p99 < 20 ms)`,
      );
      console.log(
        `  baseline: GET the task (same server, load)   p50 ${ms(pct(baseline, 50))} ms  p99 ${ms(pct(baseline, 99))} ms`,
      );
    }
  } finally {
    await direct.close();
    for (const target of targets) await target.stop();
    await metasearch.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
