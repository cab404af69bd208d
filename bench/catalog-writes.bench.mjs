// Issue 28: product creation in one space through the API with 1, 4 and 16 concurrent callers
// (WEB_CONCURRENCY workers, default 2), then the space's product counter checked against a count of
// its rows and against the creates that succeeded. While the 16-caller run goes, pg_stat_activity
// is sampled for the server's waits (a hot row shows as Lock:transactionid).
//
//   npm run bench -- catalog-writes
//   BENCH_CALLERS=1,4,16 BENCH_DURATION=10 BENCH_WORKERS=2 node bench/catalog-writes.bench.mjs
//   BENCH_PROFILE=/tmp/prof node bench/catalog-writes.bench.mjs   (the server under --cpu-prof)
//   BENCH_SCRIPT=../baseline/dist/main.js node bench/catalog-writes.bench.mjs   (another build)
//   BENCH_KEYED=both node bench/catalog-writes.bench.mjs   (each caller count without, then with, an
//   Idempotency-Key on every create; BENCH_KEYED=1 only with)
// Each run also reports the server's commits per created product (pg_stat_database) and the WAL flushes
// of the whole PostgreSQL server meanwhile (pg_stat_wal, other databases included).
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { DURATION, register, scratchDatabase, signIn, startProcess } from './lib.mjs';

const CALLERS = (process.env.BENCH_CALLERS ?? '1,4,16').split(',').map(Number);
const WORKERS = process.env.BENCH_WORKERS ?? '2';
const PROFILE_DIR = process.env.BENCH_PROFILE;
const KEYED = { both: [false, true], 1: [true] }[process.env.BENCH_KEYED ?? ''] ?? [false];

/** Commits in the bench database and WAL flushes of the server so far. */
async function commitsAndFlushes(client, database) {
  const { rows } = await client.query(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::bigint AS commits,
            (SELECT wal_sync FROM pg_stat_wal)::bigint AS syncs`,
    [database],
  );
  return { commits: Number(rows[0].commits), syncs: Number(rows[0].syncs) };
}
const PASSWORD = 'bench-password-1';

/** Samples the waits of the bench database's other sessions every 20 ms until stopped. */
function sampleWaits(client, database) {
  const waits = new Map();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query(
        `SELECT wait_event_type || ':' || wait_event AS wait, left(query, 70) AS query FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid() AND state = 'active' AND wait_event IS NOT NULL`,
        [database],
      );
      samples++;
      for (const row of rows) {
        const key = `${row.wait} ${row.query.replace(/\s+/g, ' ')}`;
        waits.set(key, (waits.get(key) ?? 0) + 1);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { samples, waits: [...waits].sort((a, b) => b[1] - a[1]).slice(0, 5) };
  };
}

async function run() {
  const database = 'verity_bench_catalog_writes';
  const { url, client } = await scratchDatabase(database);
  const server = await startProcess({
    ...(process.env.BENCH_SCRIPT ? { script: resolve(process.env.BENCH_SCRIPT) } : {}),
    env: { DATABASE_URL: url, WEB_CONCURRENCY: WORKERS, ACCESS_LOG: 'false' },
    nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  });
  let failed = false;
  try {
    await register(server.base, 'writes@bench.test', PASSWORD);
    const token = await signIn(server.base, 'writes@bench.test', PASSWORD);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const spaceRes = await fetch(`${server.base}/api/v1.0/spaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Writes bench' }),
    });
    const space = await spaceRes.json();
    let created = 0;
    let n = 0;
    const lines = [];
    for (const callers of CALLERS) {
      for (const keyed of KEYED) {
        const stopSampling =
          callers === Math.max(...CALLERS) && keyed === KEYED[0] ? sampleWaits(client, database) : null;
        const before = await commitsAndFlushes(client, database);
        const result = await autocannon({
          url: server.base,
          connections: callers,
          duration: DURATION,
          headers,
          requests: [
            {
              method: 'POST',
              path: `/api/v1.0/catalog/spaces/${space.slug}/products`,
              setupRequest: (request) => ({
                ...request,
                headers: keyed ? { ...request.headers, 'idempotency-key': randomUUID() } : request.headers,
                body: JSON.stringify({ name: `product ${callers}-${++n}`, tags: ['bench'] }),
              }),
            },
          ],
        });
        const after = await commitsAndFlushes(client, database);
        const ok = result['2xx'];
        created += ok;
        const bad = result.errors + result.timeouts + result.non2xx;
        if (bad) failed = true;
        lines.push(
          `${String(callers).padStart(2)} callers${keyed ? ', keyed' : '       '}: ` +
            `${String(Math.round(ok / DURATION)).padStart(5)} products/s  ` +
            `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  failed ${bad}  ` +
            `commits/product ${((after.commits - before.commits) / Math.max(ok, 1)).toFixed(2)}  ` +
            `server WAL flushes/s ${Math.round((after.syncs - before.syncs) / DURATION)}`,
        );
        if (stopSampling) {
          const { samples, waits } = await stopSampling();
          lines.push(`   waits in ${samples} samples of pg_stat_activity at ${callers} callers:`);
          for (const [what, count] of waits) lines.push(`   ${String(count).padStart(5)}  ${what}`);
        }
      }
    }
    // Requests still in flight when a run ends commit after it: read once the row count holds still.
    const count = async () =>
      (await client.query(`SELECT count(*)::int AS n FROM products WHERE space_id = $1`, [space.id])).rows[0]
        .n;
    let rows = await count();
    for (let settled = -1; settled !== rows;) {
      settled = rows;
      await new Promise((r) => setTimeout(r, 500));
      rows = await count();
    }
    const listed = await (
      await fetch(`${server.base}/api/v1.0/catalog/spaces/${space.slug}/products?limit=1`, { headers })
    ).json();
    // Autocannon counts the answers it got in time; the rest still committed.
    const exact = listed.total === rows && rows >= created;
    if (!exact) failed = true;
    console.log(
      `\n== product creation in one space: WEB_CONCURRENCY=${WORKERS}, ${DURATION} s each, ` +
        `${availableParallelism()} cores, load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} ==`,
    );
    for (const line of lines) console.log(line);
    console.log(
      `counter ${exact ? 'exact' : 'WRONG'}: list total ${listed.total}, rows ${rows}, answered 201 ${created}`,
    );
  } finally {
    await server.stop();
    await client.end();
  }
  if (failed) process.exit(1);
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
