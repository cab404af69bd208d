// Issue 28: time to ready after a cold start. Spawns the built server on an already migrated
// PostgreSQL database, again and again, and times from the spawn to the first 200 on /health
// (polled every few milliseconds), with WEB_CONCURRENCY 1 and 2; the process is stopped between runs.
//
//   npm run bench -- startup
//   BENCH_STARTUP_RUNS=9 BENCH_WORKERS=1,2 node bench/startup.bench.mjs
//   BENCH_PROFILE=/tmp/prof node bench/startup.bench.mjs   (every process under --cpu-prof)
//   BENCH_MAIN=../verity-baseline/dist/main.js node bench/startup.bench.mjs   (another build)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, scratchDatabase, startProcess } from './lib.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 7);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_PROFILE;
// Another build's dist/main.js (a baseline) instead of this one's.
const MAIN = process.env.BENCH_MAIN ?? join(ROOT, 'dist', 'main.js');
const POLL_MS = 5;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// CPU time is what a loaded machine does not inflate: read from /proc (Linux), process and its workers.
const TICK_MS = 10;
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
    return own + children.reduce((sum, child) => sum + cpuMs(child), 0);
  } catch {
    return NaN;
  }
}

/** One cold start: milliseconds from spawn to the first 200 on /health, and the CPU time spent by then. */
async function timeToReady(url, workers) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), MAIN],
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
        if (res.ok) return { ms: performance.now() - started, cpu: cpuMs(child.pid) };
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

const median = (values) => Math.round(values[Math.floor(values.length / 2)]);

for (const workers of WORKERS) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await timeToReady(url, workers));
  const times = runs.map((run) => run.ms).sort((a, b) => a - b);
  const cpu = runs.map((run) => run.cpu).sort((a, b) => a - b);
  console.log(
    `startup of ${MAIN}: WEB_CONCURRENCY=${workers}, ${RUNS} cold starts on a migrated database, ${availableParallelism()} cores, ` +
      `load average ${load()}`,
  );
  console.log(
    `  time to first 200 on /health: median ${median(times)} ms, ` +
      `min ${Math.round(times[0])} ms, max ${Math.round(times[times.length - 1])} ms; ` +
      `CPU time by then (all processes) median ${median(cpu)} ms`,
  );
}
