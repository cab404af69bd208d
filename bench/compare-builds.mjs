// Per-request cost of this build against another one (a baseline commit), measured the only
// way that shows a few percent on two shared cores: both servers run at once, each on its own
// fresh database, and short rounds alternate between them (ABBA), so that the machine's drift
// falls on both alike. Reports requests/s per round, the paired mean ratio with its 95%
// confidence interval, and each server's CPU per request (from /proc, Linux only).
//
//   git worktree add ../verity-baseline <commit>
//   (cd ../verity-baseline && npm ci && npm run build)
//   npm run build && BENCH_BASELINE=../verity-baseline/dist/main.js node bench/compare-builds.mjs
//
// BENCH_ROUNDS (default 20), BENCH_ROUND_SECONDS (2), BENCH_CONNECTIONS (50); BENCH_ROUTES (names,
// comma-separated, e.g. 'GET product') to measure some routes only: a write's follow-up work (events,
// embeddings) runs during the rounds after it, and a faster build writes more.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { measure, register, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const BASELINE = process.env.BENCH_BASELINE;
if (!BASELINE) throw new Error('BENCH_BASELINE: the dist/main.js of the build to compare against');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const ROUTES = process.env.BENCH_ROUTES?.split(',').map((name) => name.trim());
const SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PASSWORD = 'bench-password-1';

/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function start(label, script) {
  const { url, client } = await scratchDatabase(`verity_bench_compare_${label}`);
  await client.end();
  const server = await startProcess({
    script,
    env: {
      DATABASE_URL: url,
      WEB_CONCURRENCY: '1',
      ACCESS_LOG: 'false',
      // Per-request cost, not the limiter's answer: at 50 connections the default limits answer 429.
      RATE_LIMIT_ENABLED: 'false',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    },
  });
  await register(server.base, 'compare@bench.test', PASSWORD);
  const token = await signIn(server.base, 'compare@bench.test', PASSWORD);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = async (path, body) =>
    (
      await fetch(`${server.base}/api/v1.0${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    ).json();
  const space = await post('/spaces', { name: 'Compare', slug: 'compare' });
  const product = await post(`/catalog/spaces/${space.slug}/products`, { name: 'orders' });
  let n = 0;
  // Writes need a fresh name on every request (a repeated one would be a 409).
  const creating = (path) => ({
    path: '/',
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `${label} ${++n}` }) }),
      },
    ],
  });
  const routes = {
    'GET /auth/me': '/api/v1.0/auth/me',
    'GET product': `/api/v1.0/catalog/spaces/${space.slug}/products/${product.id}`,
    'POST /spaces': creating('/api/v1.0/spaces'),
    'POST product': creating(`/api/v1.0/catalog/spaces/${space.slug}/products`),
  };
  return { label, server, token, routes };
}

const builds = [await start('baseline', resolve(BASELINE)), await start('this', `${ROOT}/dist/main.js`)];
const measured = Object.keys(builds[0].routes).filter((name) => !ROUTES || ROUTES.includes(name));
const results = new Map();
try {
  for (let round = -1; round < ROUNDS; round++) {
    const warmUp = round < 0;
    for (const route of measured) {
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        const before = cpuMs(build.server.pid);
        const target = build.routes[route];
        const row = await measure(route, {
          url: build.server.base + (typeof target === 'string' ? target : target.path),
          ...(typeof target === 'string' ? {} : { requests: target.requests }),
          connections: CONNECTIONS,
          duration: SECONDS,
          headers: { authorization: `Bearer ${build.token}`, 'content-type': 'application/json' },
        });
        if (warmUp) continue;
        const key = `${route}|${build.label}`;
        if (!results.has(key)) results.set(key, { rps: [], cpu: [] });
        results.get(key).rps.push(row.rps);
        results.get(key).cpu.push(((cpuMs(build.server.pid) - before) * 1000) / (row.rps * SECONDS));
      }
    }
  }
} finally {
  for (const build of builds) await build.server.stop();
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const route of measured) {
  const base = results.get(`${route}|baseline`);
  const mine = results.get(`${route}|this`);
  const ratios = mine.rps.map((rps, i) => rps / base.rps[i]);
  const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  const sd = Math.sqrt(ratios.reduce((a, b) => a + (b - mean) ** 2, 0) / (ratios.length - 1));
  const half = (1.96 * sd) / Math.sqrt(ratios.length);
  console.log(
    `${route.padEnd(14)} req/s median ${median(base.rps)} -> ${median(mine.rps)}; paired ${(100 * (mean - 1)).toFixed(1)}% ± ${(100 * half).toFixed(1)}% (95%);` +
      ` server CPU a request median ${median(base.cpu).toFixed(0)} -> ${median(mine.cpu).toFixed(0)} µs`,
  );
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
