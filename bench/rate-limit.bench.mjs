// Issue 7: what rate limiting costs an authenticated read.
//
// Runs the built server (`npm run build` first) three ways against real PostgreSQL:
//   (a) RATE_LIMIT_ENABLED=false, the baseline; (b) counters in memory; (c) counters in Redis;
// and measures GET /api/v1.0/auth/me with a JWT (signature check, session lookup, serialisation).
// Requests rotate over 40 users so no bucket reaches its limit: every answer must be a 200.
// Loopback only; each run lasts BENCH_DURATION seconds (default 8), BENCH_ROUNDS rounds (default 3).
//
//   npm run bench -- rate-limit
import { execSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_URL = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const USERS = 40;
const DATABASE = 'verity_bench_rate_limit';
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef0123456789';
const CLOCK_TICKS = Number(execSync('getconf CLK_TCK').toString().trim()) || 100;

/**
 * CPU seconds (user + system) a process has used, from /proc. On a shared
 * machine, throughput moves with everyone else's load; the server's own CPU
 * time per request barely does, so it is reported beside req/s.
 */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function withAdmin(work) {
  const client = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function startServer(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `${SERVER_URL}/${DATABASE}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bench-')),
      JWT_SECRET,
      LOG_LEVEL: 'error',
      RATE_LIMIT_USER_TIER: 'internal',
      RATE_LIMIT_ANON_TIER: 'internal',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/api/v1.0/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 300) throw new Error('server did not become healthy within 30 s');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    base,
    pid: child.pid,
    stop: () =>
      new Promise((done) => {
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}

async function signUpUsers(base) {
  const tokens = [];
  for (let i = 0; i < USERS; i++) {
    const email = `bench-${i}-${randomUUID().slice(0, 8)}@example.test`;
    const password = 'bench-password-1';
    const registered = await fetch(`${base}/api/v1.0/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
    const token = await fetch(`${base}/api/v1.0/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: email, password }),
    });
    tokens.push((await token.json()).access_token);
  }
  return tokens;
}

async function measure({ base, pid }, tokens, expectHeaders) {
  const url = `${base}/api/v1.0/auth/me`;
  const probe = await fetch(url, { headers: { authorization: `Bearer ${tokens[0]}` } });
  if (probe.status !== 200) throw new Error(`probe answered ${probe.status}`);
  if (probe.headers.has('x-ratelimit-limit') !== expectHeaders) {
    throw new Error(
      `expected rate-limit headers: ${expectHeaders}, got ${probe.headers.get('x-ratelimit-limit')}`,
    );
  }
  const requests = tokens.map((token) => ({ method: 'GET', headers: { authorization: `Bearer ${token}` } }));
  // A short warm-up (JIT, pools), then the measured run.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, requests });
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, requests });
  const cpuMicros = ((cpuSeconds(pid) - cpuBefore) * 1e6) / result.requests.total;
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(`non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMicros };
}

const CONFIGS = [
  {
    name: '(a) limiter off (RATE_LIMIT_ENABLED=false)',
    env: { RATE_LIMIT_ENABLED: 'false' },
    headers: false,
  },
  { name: '(b) limiter, counters in memory', env: {}, headers: true },
  { name: '(c) limiter, counters in Redis', env: { REDIS_URL }, headers: true, redis: true },
];

async function main() {
  await withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${DATABASE}`);
  });
  const setup = await startServer({ RATE_LIMIT_ENABLED: 'false' }); // runs the migrations
  const tokens = await signUpUsers(setup.base);
  await setup.stop();

  const results = new Map(CONFIGS.map((config) => [config.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const config of CONFIGS) {
      const env = config.redis
        ? { ...config.env, REDIS_KEY_PREFIX: `verity-bench:${randomUUID()}:` }
        : config.env;
      const server = await startServer(env);
      try {
        const run = await measure(server, tokens, config.headers);
        results.get(config.name).push(run);
        console.log(
          `round ${round} ${config.name}: ${run.rps.toFixed(0)} req/s, p99 ${run.p99} ms, ${run.cpuMicros.toFixed(0)} µs CPU/request`,
        );
      } finally {
        await server.stop();
      }
    }
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const baseline = results.get(CONFIGS[0].name);
  // Overheads are taken per round against that round's baseline (the three runs of a round are back to back),
  // then the median over rounds: robust to load that drifts during the benchmark on a shared machine.
  const overheadOf = (runs, metric, sign) =>
    median(runs.map((r, round) => (sign * (baseline[round][metric] - r[metric])) / baseline[round][metric]));
  const summary = CONFIGS.map((config, index) => {
    const runs = results.get(config.name);
    return {
      name: config.name,
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpu: median(runs.map((r) => r.cpuMicros)),
      // Lost throughput, and extra server CPU per request, against the same round's baseline.
      overhead: index === 0 ? null : overheadOf(runs, 'rps', 1),
      cpuOverhead: index === 0 ? null : overheadOf(runs, 'cpuMicros', -1),
    };
  });
  const percent = (value) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);
  console.log(
    `\n== GET /auth/me with a JWT, real PostgreSQL, ${CONNECTIONS} connections, ${DURATION} s x ${ROUNDS} rounds (medians) ==`,
  );
  const columns = ['req/s', 'p50 ms', 'p99 ms', 'overhead', 'CPU µs/req', 'CPU overhead'];
  console.log('configuration'.padEnd(46), ...columns.map((c) => c.padStart(12)));
  for (const row of summary) {
    const cells = [
      row.rps.toFixed(0),
      row.p50,
      row.p99,
      percent(row.overhead),
      row.cpu.toFixed(0),
      percent(row.cpuOverhead),
    ];
    console.log(row.name.padEnd(46), ...cells.map((c) => String(c).padStart(12)));
  }
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
