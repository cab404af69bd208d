// Issue 28: time to ready after a cold start. Spawns the built server on an already migrated
// PostgreSQL database, again and again, and times from the spawn to the first 200 on /health
// (polled every few milliseconds), with WEB_CONCURRENCY 1 and 2; the process is stopped between runs.
//
//   npm run bench -- startup
//   BENCH_STARTUP_RUNS=9 BENCH_WORKERS=1,2 node bench/startup.bench.mjs
//   BENCH_PROFILE=/tmp/prof node bench/startup.bench.mjs   (every process under --cpu-prof)
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, scratchDatabase, startProcess } from './lib.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 7);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_PROFILE;
const POLL_MS = 5;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** One cold start: milliseconds from spawn to the first 200 on /health. */
async function timeToReady(url, workers) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), join(ROOT, 'dist', 'main.js')],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bench-')),
        DATABASE_URL: url,
        WEB_CONCURRENCY: String(workers),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1.0/health`);
        await res.arrayBuffer();
        if (res.ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 60_000) throw new Error('the server did not become ready in 60 s');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const { url, client } = await scratchDatabase('bench_startup');
await client.end();
// The first start migrates; the measured ones find the schema current.
const setup = await startProcess({ env: { DATABASE_URL: url, WEB_CONCURRENCY: '1' } });
await setup.stop();

for (const workers of WORKERS) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await timeToReady(url, workers));
  times.sort((a, b) => a - b);
  console.log(
    `startup: WEB_CONCURRENCY=${workers}, ${RUNS} cold starts on a migrated database, ${availableParallelism()} cores, ` +
      `load average ${load()}`,
  );
  console.log(
    `  time to first 200 on /health: median ${Math.round(times[Math.floor(times.length / 2)])} ms, ` +
      `min ${Math.round(times[0])} ms, max ${Math.round(times[times.length - 1])} ms`,
  );
}
