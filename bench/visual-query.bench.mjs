// Issue 17: the visual query, on real PostgreSQL, served by the built app (dist/main.js).
// A group-by and a pivot over a 1,000,000-row source table (and a primary-key lookup, for the fixed cost) through POST /query/execute, against the
// very same SQL (compiled by the app's own compiler, dist/) run directly on the source:
//  - "fresh": a new connection per query, as psql would (connect, run, disconnect);
//  - "warm": one open connection (the SQL's own time, no connection set-up at all).
// The API's overhead is its median round trip minus the direct median; target under 5 ms over psql.
// Runs are interleaved (API, fresh, warm, API, ...) so that drift hits all three alike.
// General rate limits are switched off (RATE_LIMIT_ENABLED=false): this measures cost, not policy.
// Loopback only; about a minute.
//
//   npm run bench -- visual-query          (builds first)
//   BENCH_VQ_RUNS=5 BENCH_VQ_ROWS=200000 node bench/visual-query.bench.mjs
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { register, ROOT, scratchDatabase, signIn, startProcess } from './lib.mjs';

const require = createRequire(import.meta.url);
const { compileQuery } = require(join(ROOT, 'dist', 'modules', 'query', 'query-compiler.js'));
const { quoteIdent } = require(join(ROOT, 'dist', 'modules', 'connectors', 'source-catalog.service.js'));

const ROWS = Number(process.env.BENCH_VQ_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_VQ_RUNS ?? 15);
const SOURCE_DB = 'verity_bench_vq_src';

// The source table as its catalog describes it, for compiling the same SQL the app runs.
const column = (name, type, category) => ({ name, type, category, nullable: true, quoted: quoteIdent(name) });
const SALES = {
  schema: 'public',
  name: 'sales',
  quoted: '"public"."sales"',
  display: 'public.sales',
  columns: [
    column('id', 'bigint', 'N'),
    column('region', 'text', 'S'),
    column('status', 'text', 'S'),
    column('amount', 'numeric(12,2)', 'N'),
    column('qty', 'integer', 'N'),
  ],
};

const QUERIES = {
  'group by (region, status) + count, sum, avg': {
    table: 'public.sales',
    filters: [{ column: 'qty', op: 'gt', value: 0 }],
    group_by: ['region', 'status'],
    aggregations: [{ fn: 'count' }, { fn: 'sum', column: 'amount' }, { fn: 'avg', column: 'qty' }],
    order_by: [{ column: 'region' }, { column: 'status' }],
    limit: 1000,
  },
  'pivot region x status, sum(amount)': {
    table: 'public.sales',
    filters: [{ column: 'qty', op: 'gt', value: 0 }],
    pivot: { rows: ['region'], column: 'status', value: 'amount', aggregate: 'sum' },
  },
  // Next to nothing on the source: the API's fixed cost shows plainly.
  'one row by primary key (fixed cost)': {
    table: 'public.sales',
    filters: [{ column: 'id', op: 'eq', value: 424242 }],
    limit: 1,
  },
};

/** The statements the app runs for a query, in order (a pivot: its values, then its cells). */
async function statements(query, client) {
  const plan = compileQuery(query, SALES);
  if (plan.kind === 'rows') return [plan.query];
  const values = (await client.query(plan.values.sql, plan.values.params)).rows.map((r) => r.v);
  return [plan.values, plan.build(values)];
}

async function direct(url, list, client) {
  const started = performance.now();
  const own = client ?? new pg.Client({ connectionString: url });
  if (!client) await own.connect();
  try {
    // Rows as arrays of PostgreSQL's text, as the app reads them.
    for (const s of list) await own.query({ text: s.sql, values: s.params, rowMode: 'array', types: AS_TEXT });
  } finally {
    if (!client) await own.end();
  }
  return performance.now() - started;
}

const AS_TEXT = { getTypeParser: () => (value) => value };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function run() {
  const { url, client, name } = await scratchDatabase('verity_bench_vq');
  const source = await scratchDatabase(SOURCE_DB);
  const server = await startProcess({
    env: {
      DATABASE_URL: url,
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    },
  });
  try {
    let t0 = performance.now();
    await source.client.query(
      `CREATE TABLE sales AS
         SELECT n::bigint AS id,
                (ARRAY['EU','US','APAC','LATAM','MEA','NORDICS','DACH','UKI','ANZ','JAPAN'])[1 + n % 10] AS region,
                (ARRAY['paid','open','refunded','disputed','void'])[1 + (n / 10) % 5] AS status,
                round((n % 10000) / 7.0, 2)::numeric(12,2) AS amount,
                (n % 7)::int AS qty
           FROM generate_series(1, $1) n`,
      [ROWS],
    );
    await source.client.query('ALTER TABLE sales ADD PRIMARY KEY (id)');
    await source.client.query('VACUUM ANALYZE sales');
    console.log(`seeded a ${ROWS}-row source table in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const password = 'bench-password-1';
    await register(server.base, 'vq@example.test', password);
    const token = await signIn(server.base, 'vq@example.test', password);
    const call = async (method, path, body) => {
      const res = await fetch(`${server.base}/api/v1.0${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const space = await call('POST', '/spaces', { name: 'Bench visual query' });
    const connector = await call('POST', `/connectors/spaces/${space.slug}`, {
      name: 'Bench source',
      connector_type: 'postgresql',
      config: { connection_string: source.url },
    });

    // The app's own floor: an authenticated read with a space access check, no source involved.
    const floor = [];
    for (let i = 0; i < RUNS; i++) {
      t0 = performance.now();
      const res = await fetch(`${server.base}/api/v1.0/connectors/spaces/${space.slug}/${connector.id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await res.text();
      floor.push(performance.now() - t0);
    }

    console.log('\n== visual query over a 1M-row source (real PostgreSQL), medians of interleaved runs ==');
    console.log(`app floor (GET /connectors/spaces/{slug}/{id}, no source): ${median(floor).toFixed(1)} ms`);
    for (const [title, query] of Object.entries(QUERIES)) {
      const list = await statements(query, source.client);
      const body = { space_slug: space.slug, connector_id: connector.id, query };
      // Warm-up: plans, caches, the app's catalog cache.
      const sample = await call('POST', '/query/execute', body);
      await direct(source.url, list, source.client);
      const api = [];
      const fresh = [];
      const warm = [];
      const reported = [];
      for (let i = 0; i < RUNS; i++) {
        t0 = performance.now();
        const answer = await call('POST', '/query/execute', body);
        api.push(performance.now() - t0);
        reported.push(answer.elapsed_ms);
        fresh.push(await direct(source.url, list));
        warm.push(await direct(source.url, list, source.client));
      }
      const [a, f, w] = [median(api), median(fresh), median(warm)];
      console.log(
        `${title}: ${sample.row_count} rows x ${sample.columns.length} columns\n` +
          `  API ${a.toFixed(1)} ms (elapsed_ms ${median(reported)}), direct fresh connection ${f.toFixed(1)} ms, ` +
          `direct warm ${w.toFixed(1)} ms\n` +
          `  overhead over psql-like direct: ${(a - f).toFixed(1)} ms (target < 5 ms: ${a - f < 5 ? 'met' : 'NOT met'}); ` +
          `over a warm connection: ${(a - w).toFixed(1)} ms`,
      );
    }
  } finally {
    await server.stop();
    await client.end();
    await source.client.end();
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${source.name} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
