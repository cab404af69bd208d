// Catalog benchmark: a space with 100k products and a 100k-node lineage graph
// of depth 10 (11 layers, each product below the first fed by two random
// products of the layer above) on real PostgreSQL, served by the built app (dist/main.js).
// Measures product list (50 per page) and get at 50 connections, and the
// downstream lineage of a root product. Loopback only; about 2 minutes.
//
//   npm run bench -- catalog          (builds first)
//   BENCH_SERVER_URL=postgres://postgres@127.0.0.1:5432 BENCH_SECONDS=10 node bench/catalog.bench.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = process.env.BENCH_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB = 'verity_bench_catalog';
const PORT = Number(process.env.BENCH_PORT ?? 18431);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PRODUCTS = 100_000;
// 11 layers of products, so that a root's downstream lineage is 10 hops deep.
const LAYERS = 11;
const PER_LAYER = Math.ceil(PRODUCTS / LAYERS);
const base = `http://127.0.0.1:${PORT}/api/v1.0`;

async function admin(sql) {
  const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function http(method, path, { token, body, form } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(form).toString();
  } else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function startServer(dataDir) {
  const child = spawn(process.execPath, [join(root, 'dist/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: `${SERVER}/${DB}`,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function waitForHealth(child) {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not become healthy');
}

async function seed(spaceId, ownerId) {
  const client = new pg.Client({ connectionString: `${SERVER}/${DB}` });
  await client.connect();
  try {
    const started = Date.now();
    await client.query(
      `INSERT INTO products (space_id, name, description, product_type, tags, attributes)
       SELECT $1, 'product-' || lpad(g::text, 6, '0'), 'Benchmark product ' || g,
              (ARRAY['dataset','dashboard','ml_model','pipeline'])[1 + g % 4],
              ARRAY['layer-' || ((g - 1) / ${PER_LAYER}), 'bench'], jsonb_build_object('n', g)
         FROM generate_series(1, ${PRODUCTS}) g`,
      [spaceId],
    );
    // The counter the API keeps for products it creates itself.
    await client.query(
      `INSERT INTO product_counts (space_id, shard, total) SELECT $1, 0, count(*) FROM products WHERE space_id = $1
       ON CONFLICT (space_id, shard) DO UPDATE SET total = EXCLUDED.total`,
      [spaceId],
    );
    // Every tenth product has an owner, so reads resolve governance roles.
    await client.query(
      `INSERT INTO product_roles (product_id, user_id, role)
       SELECT id, $2, 'owner' FROM products WHERE space_id = $1 AND right(name, 1) = '0'`,
      [spaceId, ownerId],
    );
    // Layer k holds products (k*PER_LAYER, (k+1)*PER_LAYER]; each product below layer 0 has two random parents one layer up.
    await client.query(
      `CREATE TEMP TABLE numbered AS
         SELECT id, (substr(name, 9))::int AS n FROM products WHERE space_id = $1`,
      [spaceId],
    );
    await client.query(`CREATE UNIQUE INDEX ON numbered (n)`);
    // A fixed seed makes the graph (and so the numbers) the same on every run.
    await client.query('SELECT setseed(0.42)');
    await client.query(
      `INSERT INTO lineage_edges (upstream_id, downstream_id, space_id)
       SELECT parent.id, picked.child_id, $1
         FROM (SELECT child.id AS child_id,
                      ((child.n - 1) / ${PER_LAYER} - 1) * ${PER_LAYER} + 1 + floor(random() * ${PER_LAYER})::int AS parent_n
                 FROM numbered child CROSS JOIN generate_series(1, 2) pick
                WHERE child.n > ${PER_LAYER}) picked
         JOIN numbered parent ON parent.n = picked.parent_n
       ON CONFLICT DO NOTHING`,
      [spaceId],
    );
    await client.query('VACUUM ANALYZE products');
    await client.query('VACUUM ANALYZE lineage_edges');
    await client.query('VACUUM ANALYZE product_roles');
    const { rows: edges } = await client.query('SELECT count(*)::int AS n FROM lineage_edges');
    // A root (layer 0) that feeds many: of the first 20, the one with the most direct children.
    const { rows: roots } = await client.query(
      `SELECT n.id FROM numbered n JOIN lineage_edges e ON e.upstream_id = n.id
        WHERE n.n <= 20 GROUP BY n.id, n.n ORDER BY count(*) DESC, n.n LIMIT 1`,
    );
    const { rows: sample } = await client.query(
      `SELECT id FROM products WHERE space_id = $1 ORDER BY random() LIMIT 1000`,
      [spaceId],
    );
    console.log(`seeded ${PRODUCTS} products and ${edges[0].n} lineage edges in ${Date.now() - started} ms`);
    return { rootId: roots[0].id, sampleIds: sample.map((r) => r.id) };
  } finally {
    await client.end();
  }
}

function run(title, { token, connections, paths, duration = SECONDS }) {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${PORT}`,
        connections,
        duration,
        headers: { authorization: `Bearer ${token}` },
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const bad = result.non2xx + result.errors + result.timeouts;
        const line = {
          title,
          connections,
          'req/s': Math.round(result.requests.average),
          'p50 ms': result.latency.p50,
          'p99 ms': result.latency.p99,
          'max ms': result.latency.max,
          requests: result.requests.total,
          failed: bad,
        };
        resolve(line);
      },
    );
  });
}

/** LineageService.downstreamOf's query (every product downstream, any depth), timed directly on PostgreSQL. */
async function blastRadius(rootId) {
  const { LineageQueries } = await import('../dist/modules/catalog/lineage.queries.js');
  const client = new pg.Client({ connectionString: `${SERVER}/${DB}` });
  await client.connect();
  try {
    const em = { query: (sql, params) => client.query(sql, params).then((r) => r.rows) };
    const times = [];
    let size = 0;
    for (let i = 0; i < 60; i++) {
      const started = process.hrtime.bigint();
      size = (await LineageQueries.downstreamIds(em, rootId)).length;
      if (i >= 10) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
    console.log(`downstreamOf(root) (blast radius, any depth): ${size} products, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  } finally {
    await client.end();
  }
}

async function main() {
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'verity-bench-'));
  const server = startServer(dataDir);
  try {
    await waitForHealth(server);
    const email = `bench-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    const user = await http('POST', '/auth/register', {
      body: { email, password, first_name: 'Bench', last_name: 'User' },
    });
    const { access_token: token } = await http('POST', '/auth/token', { form: { username: email, password } });
    const space = await http('POST', '/spaces', { token, body: { name: 'Benchmark', slug: 'bench' } });
    const { rootId, sampleIds } = await seed(space.id, user.id);

    const products = `/api/v1.0/catalog/spaces/${space.slug}/products`;
    const check = await http('GET', `/catalog/spaces/${space.slug}/products?limit=50`, { token });
    const lineage = await http(
      'GET',
      `/catalog/spaces/${space.slug}/products/${rootId}/lineage?direction=downstream&depth=10`,
      { token },
    );
    console.log(
      `list total=${check.total}; root's downstream lineage: ${lineage.nodes.length} nodes, ${lineage.edges.length} edges, deepest ${Math.max(...lineage.nodes.map((n) => n.depth))}`,
    );

    const results = [];
    // Warm up the process and the caches.
    await run('warm-up', { token, connections: 10, duration: 3, paths: [`${products}?limit=50`] });
    const list = `${products}?limit=50`;
    const pages = Array.from({ length: 20 }, (_, p) => `${products}?limit=50&skip=${p * 50}`);
    const gets = sampleIds.map((id) => `${products}/${id}`);
    for (const connections of [50, 10]) {
      results.push(await run('list 50 (first page)', { token, connections, paths: [list] }));
      results.push(await run('list 50 (pages 1-20)', { token, connections, paths: pages }));
      results.push(await run('get by id', { token, connections, paths: gets }));
    }
    results.push(await run('list 50, tag filter', { token, connections: 10, paths: [`${products}?limit=50&tag=layer-3`] }));
    results.push(await run('list 50, q search', { token, connections: 10, paths: [`${products}?limit=50&q=product-0123`] }));
    const lineagePath = `${products}/${rootId}/lineage?direction=downstream&depth=10`;
    results.push(await run('lineage downstream (root, depth 10)', { token, connections: 1, paths: [lineagePath] }));
    results.push(await run('lineage downstream (root, depth 10)', { token, connections: 4, paths: [lineagePath] }));
    console.table(results);
    await blastRadius(rootId);
    const failed = results.reduce((sum, r) => sum + r.failed, 0);
    if (failed) {
      console.error(`${failed} requests failed`);
      process.exitCode = 1;
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    if (!process.env.BENCH_KEEP_DB) await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
