// Issue 18: the cost of instance resolution on GET /auth/me and a product read, with
// INSTANCES instances (default 20) on one PostgreSQL server. Each line is measured on
// `default` (the deployment database: the single-instance path) and on one other instance
// (token `ins` -> its own pool, the user's copy, the routed repositories).
//
//   npm run bench -- instances
//   BENCH_INSTANCES=20 BENCH_INSTANCE_POOL=2 BENCH_DURATION=10 node bench/instances.bench.mjs
//
// Pool budget printed at the end: DATABASE_POOL_SIZE + INSTANCES x INSTANCE_DATABASE_POOL_SIZE
// connections per worker process (plus one listening connection), against max_connections.
import { createRequire } from 'node:module';
import pg from 'pg';
import { measure, report, scratchDatabase, SERVER_URL, signIn, startProcess } from './lib.mjs';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 20);
const INSTANCE_POOL = Number(process.env.BENCH_INSTANCE_POOL ?? 2);
const POOL = 10;
const PASSWORD = 'bench-password-1';

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}/api/v1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

async function withAdmin(work) {
  const admin = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

const { url, client } = await scratchDatabase('verity_bench_instances');
await client.end();
const server = await startProcess({
  env: {
    DATABASE_URL: url,
    DATABASE_POOL_SIZE: String(POOL),
    INSTANCE_DATABASE_POOL_SIZE: String(INSTANCE_POOL),
    WEB_CONCURRENCY: '1',
  },
});
const names = Array.from({ length: INSTANCES }, (_, i) => `verity_bench_instance_${i + 1}`);
const TEMPLATE = 'verity_bench_instance_tpl';
try {
  // The first account may make itself superadmin (bootstrap).
  const registered = await fetch(`${server.base}/api/v1.0/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'root@bench.test', password: PASSWORD, is_superadmin: true }),
  });
  if (registered.status !== 201) throw new Error(`register failed: ${registered.status}`);
  const root = await signIn(server.base, 'root@bench.test', PASSWORD);

  // Instance databases start as copies of a migrated template, so creating one (which migrates it) is quick.
  await withAdmin(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  });
  const { migrateDatabase } = createRequire(import.meta.url)('../dist/database/migrate.js');
  await migrateDatabase(`${SERVER_URL}/${TEMPLATE}`, { embedded: false });
  const started = Date.now();
  const instances = [];
  for (const [i, name] of names.entries()) {
    await withAdmin(async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
    });
    instances.push(
      await api(server.base, 'POST', '/admin/instances', root, {
        slug: `bench-${i + 1}`,
        name: `Bench ${i + 1}`,
        database_url: `${SERVER_URL}/${name}`,
      }),
    );
  }
  console.log(`${INSTANCES} instances created in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The same space and product on `default` and on the first other instance.
  const onInstance = (
    await api(server.base, 'POST', '/auth/switch-instance', root, { instance: instances[0].id })
  ).access_token;
  const targets = [];
  for (const [label, token] of [
    ['default', root],
    ['instance', onInstance],
  ]) {
    const space = await api(server.base, 'POST', '/spaces', token, { name: 'Bench', slug: 'bench' });
    const product = await api(server.base, 'POST', `/catalog/spaces/${space.slug}/products`, token, {
      name: 'orders',
    });
    targets.push({ label, token, path: `/api/v1.0/catalog/spaces/${space.slug}/products/${product.id}` });
  }
  // Open every instance's pool, as a busy deployment would have them.
  for (const instance of instances) {
    const token = (await api(server.base, 'POST', '/auth/switch-instance', root, { instance: instance.id }))
      .access_token;
    await api(server.base, 'GET', '/spaces', token);
  }

  const rows = [];
  for (const { label, token, path } of targets) {
    const headers = { authorization: `Bearer ${token}` };
    rows.push(await measure(`GET /auth/me (${label})`, { url: `${server.base}/api/v1.0/auth/me`, headers }));
    rows.push(await measure(`GET product (${label})`, { url: server.base + path, headers }));
  }
  report(rows);
  for (const what of ['GET /auth/me', 'GET product']) {
    const [base, inst] = rows.filter((row) => row.title.startsWith(what));
    console.log(
      `${what}: instance vs default ${(((inst.rps - base.rps) / base.rps) * 100).toFixed(1)}% req/s`,
    );
  }
  const [{ max_connections: max }] = (await withAdmin((admin) => admin.query('SHOW max_connections'))).rows;
  console.log(
    `Pool budget per worker: ${POOL} + ${INSTANCES} x ${INSTANCE_POOL} = ${POOL + INSTANCES * INSTANCE_POOL} connections (+1 listener); server max_connections ${max}`,
  );
} finally {
  await server.stop();
  await withAdmin(async (admin) => {
    for (const name of [...names, TEMPLATE])
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query('DROP DATABASE IF EXISTS verity_bench_instances WITH (FORCE)');
  });
}
