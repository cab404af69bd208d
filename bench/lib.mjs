// Shared benchmark helpers: a scratch PostgreSQL database, the built server as a child process,
// and autocannon runs summarised as requests/s and latency percentiles. Loopback only.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_URL = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const DURATION = Number(process.env.BENCH_DURATION ?? 10);

export async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A fresh, empty database; returns its URL and a pg client connected to it. */
export async function scratchDatabase(unprefixed) {
  // BENCH_DB_PREFIX keeps benches run at once from several checkouts on one server apart.
  const name = `${process.env.BENCH_DB_PREFIX ?? ''}${unprefixed}`;
  const admin = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `${SERVER_URL}/${name}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { url, client, name };
}

/** Starts a node script (by default the built server) and waits until `readyPath` answers 200. */
export async function startProcess({
  script = join(ROOT, 'dist', 'main.js'),
  env = {},
  readyPath = '/api/v1.0/health',
  nodeArgs = [],
} = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    // The build's own checkout (dist/..): another build (a baseline) migrates with its own migrations.
    cwd: dirname(dirname(script)),
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bench-')),
      // One client hammering one route would only measure 429s; the limiter's own cost is rate-limit.bench.mjs.
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  // BENCH_READY_SECONDS: a loaded machine can take longer to boot the server.
  const deadline = Date.now() + Number(process.env.BENCH_READY_SECONDS ?? 60) * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(base + readyPath)).ok) break;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) {
      // Not left running (and holding the caller's stdout) after the bench gives up.
      child.kill('SIGKILL');
      throw new Error(`${script} did not become ready`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Runs autocannon and answers a one-line summary. */
export async function measure(title, options) {
  const result = await autocannon({ connections: 10, duration: DURATION, ...options });
  const errors = result.errors + result.timeouts + (result.non2xx ?? 0);
  if (errors) throw new Error(`${title}: ${errors} failed requests; the numbers would be meaningless.`);
  return {
    title,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  };
}

export function report(rows, ceiling) {
  for (const row of rows) {
    const ratio = ceiling ? ` ${((row.rps / ceiling) * 100).toFixed(0).padStart(4)}% of ceiling` : '';
    console.log(
      `${row.title.padEnd(46)} ${String(row.rps).padStart(7)} req/s  p50 ${String(row.p50).padStart(4)} ms  p99 ${String(row.p99).padStart(4)} ms  errors ${row.errors}${ratio}`,
    );
  }
}

/** Signs in over HTTP and answers the access token. */
export async function signIn(base, email, password) {
  const res = await fetch(`${base}/api/v1.0/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: email, password }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

/** Registers one account over HTTP (so its password hash is real). */
export async function register(base, email, password) {
  const res = await fetch(`${base}/api/v1.0/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, first_name: 'Bench', last_name: 'User' }),
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  return res.json();
}
