// AI gateway benchmark on real PostgreSQL:
//  - gateway overhead per call: AiGatewayService.complete() in this process (route, prompt, budget
//    with a budget set so its usage query runs, guardrails, provider call, log write), against a
//    local OpenAI-compatible server in its own process; overhead = total - the provider server's
//    own handling time (target p99 < 5 ms);
//  - GET /admin/ai-logs/usage?days=30 over 1,000,000 AI log rows (and their daily rollups),
//    served by the built app (target p99 < 50 ms);
//  - GET /admin/ai-logs (the list's first page and its exact total) over the same rows, unfiltered and
//    filtered (target p99 < 20 ms).
//
//   npm run bench -- ai            (builds first)
//   BENCH_AI_LOGS=100000 BENCH_AI_CALLS=500 node bench/ai.bench.mjs   (a quick check)
import { fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, measure, register, report, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const require = createRequire(import.meta.url);
const LOGS = Number(process.env.BENCH_AI_LOGS ?? 1_000_000);
const CALLS = Number(process.env.BENCH_AI_CALLS ?? 2000);
const WARMUP = 200;
const DB = 'verity_bench_ai';

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (v) => v.toFixed(2).padStart(6);

async function startProvider() {
  const port = await freePort();
  const child = fork(join(ROOT, 'bench', 'ai-provider-server.cjs'), [], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`provider server exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    stats: async () => (await fetch(`${base}/stats`)).json(),
    stop: () => new Promise((r) => (child.kill('SIGTERM'), child.once('exit', r))),
  };
}

async function gatewayOverhead(url, provider) {
  const { createApp } = require(join(ROOT, 'dist', 'app.factory.js'));
  const { loadConfig } = require(join(ROOT, 'dist', 'config', 'app.config.js'));
  const { AiGatewayService } = require(join(ROOT, 'dist', 'modules', 'ai', 'ai-gateway.service.js'));
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bench-ai-')),
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'false',
    AI_PROVIDER: 'openai_compatible',
    AI_MODEL: 'gpt-4o-mini',
    AI_API_KEY: 'sk-bench-key-0123456789abcdef',
    AI_API_BASE_URL: `${provider.base}/v1`,
    TRUSTED_AI_HOSTS: '127.0.0.1',
    // A budget, so every call runs the budget's usage query too.
    AI_BUDGET_MONTHLY_TOKENS: '1000000000000',
  });
  const app = await createApp({ config, database: { url, poolSize: 4 }, migrationsRun: true });
  await app.init();
  const gateway = app.get(AiGatewayService);
  const variables = {
    alert: {
      id: 'a1',
      type: 'anomaly',
      message: 'Row count of orders dropped by 80%; owner ops@example.com',
    },
    product: { name: 'orders', owner: 'jane.doe@example.com', description: 'Orders of the web shop, daily' },
    lineage: [{ name: 'raw_orders' }, { name: 'orders_daily' }],
    recent_runs: [
      { status: 'failed', value: 1200 },
      { status: 'passed', value: 6000 },
    ],
    incidents: [],
  };
  const call = () =>
    gateway.complete({
      feature: 'alert_explain',
      promptKey: 'alert_explain',
      variables,
      userId: null,
      untrustedVariables: ['alert', 'product'],
    });
  try {
    for (let i = 0; i < WARMUP; i++) await call();
    await provider.stats();
    const totals = [];
    for (let i = 0; i < CALLS; i++) {
      const start = performance.now();
      await call();
      totals.push(performance.now() - start);
    }
    const handled = await provider.stats();
    if (handled.length !== CALLS) throw new Error(`provider saw ${handled.length} calls, expected ${CALLS}`);
    const overhead = totals.map((t, i) => t - handled[i]);
    console.log(
      `gateway call total      (${CALLS} sequential)   p50 ${ms(pct(totals, 50))} ms  p99 ${ms(pct(totals, 99))} ms`,
    );
    console.log(
      `provider handling                              p50 ${ms(pct(handled, 50))} ms  p99 ${ms(pct(handled, 99))} ms`,
    );
    console.log(
      `gateway overhead (total - provider)            p50 ${ms(pct(overhead, 50))} ms  p99 ${ms(pct(overhead, 99))} ms  (target p99 < 5 ms)`,
    );
    return pct(overhead, 99);
  } finally {
    await app.close();
  }
}

async function seedLogs(client) {
  const started = Date.now();
  // 1,000,000 logs over the last 40 days: 8 features, 4 models, 300 users, a few failures and redactions.
  await client.query(`
    INSERT INTO ai_logs (feature, provider, model, prompt_key, prompt_version, status, input_tokens, output_tokens,
      cost_usd, latency_ms, user_id, guardrail_actions, created_at)
    SELECT (ARRAY['alert_explain','search','pipeline_authoring','summarise','classify','lineage_doc','sql_assist','test_connection'])[1 + g % 8],
      CASE WHEN g % 4 = 3 THEN 'anthropic' ELSE 'openai' END,
      (ARRAY['gpt-4o-mini','gpt-4o','gpt-4.1-mini','claude-3-5-haiku'])[1 + (g / 8) % 4],
      'alert_explain', 0,
      CASE WHEN g % 50 = 0 THEN 'error' WHEN g % 97 = 0 THEN 'budget_exceeded' ELSE 'success' END,
      200 + g % 800, 50 + g % 300, ((200 + g % 800) * 0.15 + (50 + g % 300) * 0.6) / 1000000, 300 + g % 900,
      md5('user' || (g % 300))::uuid,
      CASE WHEN g % 10 = 0 THEN '[{"kind":"redact_email","count":1}]'::jsonb ELSE '[]'::jsonb END,
      now() - ((g::bigint * 7919) % (40 * 86400)) * interval '1 second'
    FROM generate_series(1, ${LOGS}) g`);
  await client.query(`
    INSERT INTO ai_usage_daily (day, feature, provider, model, calls, failures, blocked, budget_exceeded, guarded_calls,
      input_tokens, output_tokens, cost_usd, latency_ms_total)
    SELECT (created_at AT TIME ZONE 'UTC')::date, feature, provider, model, count(*),
      count(*) FILTER (WHERE status = 'error'), count(*) FILTER (WHERE status = 'blocked'),
      count(*) FILTER (WHERE status = 'budget_exceeded'), count(*) FILTER (WHERE guardrail_actions <> '[]'::jsonb),
      sum(input_tokens), sum(output_tokens), sum(cost_usd), sum(latency_ms)
    FROM ai_logs GROUP BY 1, 2, 3, 4
    ON CONFLICT (day, feature, provider, model) DO UPDATE SET calls = EXCLUDED.calls`);
  await client.query(`
    INSERT INTO ai_user_usage_daily (day, user_key, feature, calls, failures, input_tokens, output_tokens, cost_usd)
    SELECT (created_at AT TIME ZONE 'UTC')::date, coalesce(user_id::text, ''), feature, count(*),
      count(*) FILTER (WHERE status <> 'success'), sum(input_tokens), sum(output_tokens), sum(cost_usd)
    FROM ai_logs GROUP BY 1, 2, 3
    ON CONFLICT (day, user_key, feature) DO UPDATE SET calls = EXCLUDED.calls`);
  // As autovacuum leaves a table that has been written for a month: statistics and a set visibility
  // map (without it, counting the oldest day's logs reads the heap instead of the index alone).
  await client.query('VACUUM ANALYZE ai_logs, ai_usage_daily, ai_user_usage_daily');
  const { rows } = await client.query(
    'SELECT (SELECT count(*) FROM ai_logs) AS logs, (SELECT count(*) FROM ai_usage_daily) AS rollups',
  );
  console.log(
    `seeded ${rows[0].logs} AI logs, ${rows[0].rollups} daily rollup rows in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

async function main() {
  const { url, client } = await scratchDatabase(DB);
  const provider = await startProvider();
  let overheadP99;
  try {
    overheadP99 = await gatewayOverhead(url, provider);
  } finally {
    await provider.stop();
  }
  await seedLogs(client);
  const server = await startProcess({
    env: { DATABASE_URL: url, JWT_SECRET: 'bench-secret-bench-secret-bench-secret', ACCESS_LOG: 'false' },
  });
  try {
    const email = `bench-ai-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    // The first account may make itself superadmin (bootstrap).
    const res = await fetch(`${server.base}/api/v1.0/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, first_name: 'Bench', last_name: 'Admin', is_superadmin: true }),
    });
    if (res.status !== 201) await register(server.base, email, password);
    const token = await signIn(server.base, email, password);
    const headers = { authorization: `Bearer ${token}` };
    const probe = await fetch(`${server.base}/api/v1.0/admin/ai-logs/usage?days=30`, { headers });
    if (!probe.ok) throw new Error(`usage: ${probe.status} ${await probe.text()}`);
    const body = await probe.json();
    console.log(
      `usage?days=30: ${body.items.length} rows, ${body.totals.calls} calls, ${body.totals.total_tokens} tokens`,
    );
    const list = await (await fetch(`${server.base}/api/v1.0/admin/ai-logs`, { headers })).json();
    const exact = (await client.query('SELECT count(*)::int AS n FROM ai_logs')).rows[0].n;
    if (list.total !== exact) throw new Error(`ai-logs total ${list.total} is not the exact count ${exact}`);
    const rows = [
      // The same server's cheapest authenticated read, as the machine's baseline at this load.
      await measure('GET /auth/me (baseline)', { url: `${server.base}/api/v1.0/auth/me`, headers }),
      await measure('GET /admin/ai-logs/usage?days=30', {
        url: `${server.base}/api/v1.0/admin/ai-logs/usage?days=30`,
        headers,
      }),
      await measure('GET /admin/ai-logs/usage/people?days=30', {
        url: `${server.base}/api/v1.0/admin/ai-logs/usage/people?days=30`,
        headers,
      }),
      await measure('GET /admin/ai-logs', { url: `${server.base}/api/v1.0/admin/ai-logs`, headers }),
      await measure('GET /admin/ai-logs?feature=search&status=success', {
        url: `${server.base}/api/v1.0/admin/ai-logs?feature=search&status=success`,
        headers,
      }),
    ];
    report(rows);
    console.log(
      `targets: gateway overhead p99 ${overheadP99.toFixed(2)} ms (< 5), usage p99 ${rows[1].p99} ms (< 50), ` +
        `log list p99 ${rows[3].p99} / ${rows[4].p99} ms (< 20)`,
    );
  } finally {
    await server.stop();
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
