// Issue 13: SCIM provisioning on real PostgreSQL.
//  - GET /scim/v2/Users?filter=userName eq "..." among 100,000 users (bulk-inserted with SQL): p99 under 20 ms.
//  - A full sync of 10,000 users (POST /scim/v2/Users, several at a time, as identity providers do): under 60 s.
//
//   npm run bench -- scim
//   BENCH_SCIM_USERS=100000 BENCH_SCIM_SYNC=10000 BENCH_SCIM_SYNC_CONCURRENCY=8 node bench/scim.bench.mjs
import { availableParallelism, loadavg } from 'node:os';
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const USERS = Number(process.env.BENCH_SCIM_USERS ?? 100_000);
const SYNC = Number(process.env.BENCH_SCIM_SYNC ?? 10_000);
const SYNC_CONCURRENCY = Number(process.env.BENCH_SCIM_SYNC_CONCURRENCY ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const FILTER_P99_MS = 20;
const SYNC_LIMIT_S = 60;

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

async function scimToken(base, token) {
  const res = await fetch(`${base}/api/v1.0/admin/scim-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (res.status !== 201) throw new Error(`scim token: ${res.status} ${await res.text()}`);
  return (await res.json()).token;
}

/** Creates `count` users through SCIM with `concurrency` requests in flight; answers the seconds taken. */
async function fullSync(base, token, count, concurrency) {
  let next = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const email = `synced-${n}@sync.example.test`;
      const res = await fetch(`${base}/api/v1.0/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: email,
          externalId: `ext-${n}`,
          name: { givenName: 'Synced', familyName: `User ${n}` },
          emails: [{ value: email, type: 'work', primary: true }],
          active: true,
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, failed };
}

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_scim');
  const server = await startProcess({ env: { DATABASE_URL: url, WEB_CONCURRENCY: '1' } });
  let failed = false;
  try {
    const password = 'bench-password-1';
    // The first account is the bootstrap superadmin.
    await fetch(`${server.base}/api/v1.0/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'root@bench.test', password, is_superadmin: true }),
    });
    const token = await scimToken(server.base, await signIn(server.base, 'root@bench.test', password));
    await client.query(
      `INSERT INTO users (email, password_hash, first_name, last_name)
       SELECT 'user' || n || '@bulk.example.test', NULL, 'Bulk', 'User ' || n FROM generate_series(1, $1) AS n`,
      [USERS],
    );
    await client.query('VACUUM ANALYZE users');
    const [{ count }] = (await client.query('SELECT count(*)::int AS count FROM users')).rows;

    let i = 0;
    // A different account on every request, named in upper case (userName is matched case-insensitively).
    const lookups = [
      {
        method: 'GET',
        setupRequest: (request) => {
          const n = 1 + ((i++ * 7919) % USERS);
          return {
            ...request,
            path: `/api/v1.0/scim/v2/Users?filter=${encodeURIComponent(`userName eq "USER${n}@bulk.example.test"`)}`,
          };
        },
      },
    ];
    const headers = { authorization: `Bearer ${token}` };
    // One client looking users up one after another (as an identity provider matches accounts), then several at once.
    const single = await measure(`GET /Users?filter=userName eq, 1 connection (${count} users)`, {
      connections: 1,
      url: server.base,
      headers,
      requests: lookups,
    });
    const parallel = await measure(`GET /Users?filter=userName eq, ${CONNECTIONS} connections`, {
      connections: CONNECTIONS,
      url: server.base,
      headers,
      requests: lookups,
    });
    console.log(`\n== SCIM filter: ${availableParallelism()} cores, load average ${load()} ==`);
    report([single, parallel], null);
    const filterOk = single.p99 < FILTER_P99_MS;
    console.log(`filter p99 (one client) ${single.p99} ms (limit ${FILTER_P99_MS} ms): ${filterOk ? 'ok' : 'TOO SLOW'}`);

    const loadBefore = load();
    const sync = await fullSync(server.base, token, SYNC, SYNC_CONCURRENCY);
    const syncOk = sync.seconds < SYNC_LIMIT_S && sync.failed === 0;
    console.log(
      `\n== SCIM full sync: ${SYNC} users created, ${SYNC_CONCURRENCY} at a time, load average before ${loadBefore}, after ${load()} ==`,
    );
    console.log(
      `${sync.seconds.toFixed(1)} s (${Math.round(SYNC / sync.seconds)} users/s), ${sync.failed} failed (limit ${SYNC_LIMIT_S} s): ${syncOk ? 'ok' : 'TOO SLOW'}`,
    );
    failed = !filterOk || !syncOk;
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
