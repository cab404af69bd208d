// Issues 13 and 26: SCIM provisioning on real PostgreSQL.
//  - GET /scim/v2/Users?filter=userName eq "..." among 100,000 users (bulk-inserted with SQL): p99 under 20 ms;
//    then again for SCIM-provisioned users, whose userName (Entra's userPrincipalName) differs from their email.
//  - A full sync of 10,000 users (POST /scim/v2/Users, several at a time, as identity providers do): under 60 s.
//  - Effective roles: a SCIM group of 10,000 members gains a mapping to a space role, changes it and loses it
//    (POST, PATCH, DELETE /admin/scim-group-mappings): each under 2 s, one statement for the space.
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
const RECOMPUTE_LIMIT_S = 2;
const MEMBER_BATCH = 1000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function scimToken(base, token) {
  const res = await fetch(`${base}/api/v1.0/admin/scim-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (res.status !== 201) throw new Error(`scim token: ${res.status} ${await res.text()}`);
  return (await res.json()).token;
}

/** The login Entra sends (the userPrincipalName), apart from the work email. */
const syncedLogin = (n) => `Synced.User${n}@Tenant.onmicrosoft.com`;

/** Creates `count` users through SCIM with `concurrency` requests in flight; answers the seconds taken and their ids. */
async function fullSync(base, token, count, concurrency) {
  let next = 0;
  let failed = 0;
  const ids = [];
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
          userName: syncedLogin(n),
          externalId: `ext-${n}`,
          name: { givenName: 'Synced', familyName: `User ${n}` },
          emails: [{ value: email, type: 'work', primary: true }],
          active: true,
        }),
      });
      const body = await res.json();
      if (res.status !== 201) failed++;
      else ids.push(body.id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, failed, ids };
}

async function call(base, token, method, path, body, expected) {
  const started = process.hrtime.bigint();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return { seconds, body: text ? JSON.parse(text) : null };
}

/**
 * A group with all the synced users as members (added 1,000 a PATCH, as Entra batches), then the
 * mapping that makes them viewers of a space is created, raised to editor and deleted; each
 * answers once every member's effective role, event and audit entry is written.
 */
async function recomputation(base, rootToken, scimToken, userIds) {
  const space = await call(
    base,
    rootToken,
    'POST',
    '/api/v1.0/spaces',
    { name: 'Recompute', slug: 'recompute' },
    201,
  );
  const group = await call(
    base,
    scimToken,
    'POST',
    '/api/v1.0/scim/v2/Groups',
    { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Everyone', members: [] },
    201,
  );
  for (let i = 0; i < userIds.length; i += MEMBER_BATCH) {
    await call(
      base,
      scimToken,
      'PATCH',
      `/api/v1.0/scim/v2/Groups/${group.body.id}`,
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [
          {
            op: 'Add',
            path: 'members',
            value: userIds.slice(i, i + MEMBER_BATCH).map((value) => ({ value })),
          },
        ],
      },
      200,
    );
  }
  const gain = await call(
    base,
    rootToken,
    'POST',
    '/api/v1.0/admin/scim-group-mappings',
    { group_id: group.body.id, space: space.body.slug, role: 'viewer' },
    201,
  );
  const change = await call(
    base,
    rootToken,
    'PATCH',
    `/api/v1.0/admin/scim-group-mappings/${gain.body.id}`,
    { role: 'editor' },
    200,
  );
  const members = await call(
    base,
    rootToken,
    'GET',
    `/api/v1.0/spaces/${space.body.slug}/members?limit=1`,
    undefined,
    200,
  );
  const lose = await call(
    base,
    rootToken,
    'DELETE',
    `/api/v1.0/admin/scim-group-mappings/${gain.body.id}`,
    undefined,
    204,
  );
  const after = await call(
    base,
    rootToken,
    'GET',
    `/api/v1.0/spaces/${space.body.slug}/members?limit=1`,
    undefined,
    200,
  );
  return {
    members: gain.body.member_count,
    gain: gain.seconds,
    change: change.seconds,
    lose: lose.seconds,
    withMapping: members.body.total,
    withoutMapping: after.body.total,
  };
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
    const rootToken = await signIn(server.base, 'root@bench.test', password);
    const token = await scimToken(server.base, rootToken);
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
    console.log(
      `filter p99 (one client) ${single.p99} ms (limit ${FILTER_P99_MS} ms): ${filterOk ? 'ok' : 'TOO SLOW'}`,
    );

    const loadBefore = load();
    const sync = await fullSync(server.base, token, SYNC, SYNC_CONCURRENCY);
    const syncOk = sync.seconds < SYNC_LIMIT_S && sync.failed === 0;
    console.log(
      `\n== SCIM full sync: ${SYNC} users created, ${SYNC_CONCURRENCY} at a time, load average before ${loadBefore}, after ${load()} ==`,
    );
    console.log(
      `${sync.seconds.toFixed(1)} s (${Math.round(SYNC / sync.seconds)} users/s), ${sync.failed} failed (limit ${SYNC_LIMIT_S} s): ${syncOk ? 'ok' : 'TOO SLOW'}`,
    );

    // Look-ups of provisioned users: their userName is kept apart from the email, in its own unique index.
    let j = 0;
    const provisioned = await measure(`GET /Users?filter=userName eq, provisioned users, 1 connection`, {
      connections: 1,
      url: server.base,
      headers,
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: `/api/v1.0/scim/v2/Users?filter=${encodeURIComponent(
              `userName eq "${syncedLogin((j++ * 7919) % SYNC).toLowerCase()}"`,
            )}`,
          }),
        },
      ],
    });
    console.log(`\n== SCIM filter on provisioned users: load average ${load()} ==`);
    report([provisioned], null);
    const provisionedOk = provisioned.p99 < FILTER_P99_MS;
    console.log(
      `filter p99 (one client) ${provisioned.p99} ms (limit ${FILTER_P99_MS} ms): ${provisionedOk ? 'ok' : 'TOO SLOW'}`,
    );

    const loadRecompute = load();
    const r = await recomputation(server.base, rootToken, token, sync.ids);
    const recomputeOk =
      Math.max(r.gain, r.change, r.lose) < RECOMPUTE_LIMIT_S &&
      r.withMapping === r.members + 1 &&
      r.withoutMapping === 1;
    console.log(
      `\n== Effective roles: a group of ${r.members} members, load average before ${loadRecompute}, after ${load()} ==`,
    );
    console.log(`mapping gained (${r.withMapping - 1} become viewers): ${r.gain.toFixed(2)} s`);
    console.log(`mapping changed (viewer → editor): ${r.change.toFixed(2)} s`);
    console.log(`mapping lost (${r.withMapping - r.withoutMapping} leave the space): ${r.lose.toFixed(2)} s`);
    console.log(`limit ${RECOMPUTE_LIMIT_S} s each: ${recomputeOk ? 'ok' : 'TOO SLOW or WRONG'}`);
    failed = !filterOk || !syncOk || !provisionedOk || !recomputeOk;
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
