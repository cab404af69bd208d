// Issue 5: data quality and incidents, on real PostgreSQL, served by the built app (dist/main.js).
//  1. Alert ingestion with correlation on a 100k-node lineage graph: POST /spaces/{slug}/alerts on random
//     products, each alert correlated (lineage walk, advisory lock per space, incident update, blast radius,
//     outbox events) in its transaction. Target 500 alerts/s.
//  2. GET /spaces/{slug}/incidents (50 per page, with and without a status) in a space holding 100k
//     incidents, at modest concurrency (4 connections). Target p99 < 20 ms.
//  3. A row_count check run against a 10M-row source table: approximate (catalog estimate, no scan) and
//     exact (count(*)), through POST /quality/checks/{id}/run.
// General rate limits are switched off (RATE_LIMIT_ENABLED=false): this measures capacity, not policy.
// Loopback only; about three minutes.
//
//   npm run bench -- quality            (builds first)
//   BENCH_DURATION=10 node bench/quality.bench.mjs
import pg from 'pg';
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const PRODUCTS = 100_000;
// 1,000 pipelines of 100 products each: within one, product k is fed by product floor((k-1)/3) and every
// tenth product also by product k-7 (a DAG: edges always go from a lower to a higher index).
const COMPONENT = 100;
const INCIDENTS = 100_000;
const SOURCE_ROWS = Number(process.env.BENCH_SOURCE_ROWS ?? 10_000_000);

async function api(base, token, method, path, body) {
  const res = await fetch(`${base}/api/v1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function seedGraph(client, spaceId) {
  await client.query(
    `INSERT INTO products (space_id, name, product_type)
     SELECT $1, 'p' || lpad(n::text, 6, '0'), 'dataset' FROM generate_series(0, $2 - 1) n`,
    [spaceId, PRODUCTS],
  );
  await client.query(
    `WITH numbered AS (
       SELECT id, (substr(name, 2))::int AS n FROM products WHERE space_id = $1
     ), pairs AS (
       SELECT n, (n / $2) * $2 + ((n % $2) - 1) / 3 AS up FROM numbered WHERE n % $2 > 0
       UNION ALL
       SELECT n, n - 7 FROM numbered WHERE n % $2 >= 7 AND n % 10 = 0
     )
     INSERT INTO lineage_edges (upstream_id, downstream_id, space_id)
     SELECT u.id, d.id, $1 FROM pairs p JOIN numbered d ON d.n = p.n JOIN numbered u ON u.n = p.up
     ON CONFLICT DO NOTHING`,
    [spaceId, COMPONENT],
  );
  await client.query('ANALYZE products; ANALYZE lineage_edges');
  const [{ edges }] = (await client.query(`SELECT count(*)::int AS edges FROM lineage_edges WHERE space_id = $1`, [spaceId])).rows;
  return edges;
}

async function seedIncidents(client, spaceId, productId) {
  await client.query(
    `INSERT INTO quality_incidents (space_id, title, status, severity, alert_count, root_product_id, created_at, updated_at, resolved_at)
     SELECT $1, 'Incident ' || n, s.status, (ARRAY['low','medium','high','critical'])[1 + n % 4], 1 + n % 5, $3,
            now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval,
            CASE WHEN s.status = 'resolved' THEN now() - (n || ' minutes')::interval END
       FROM generate_series(1, $2) n
       CROSS JOIN LATERAL (SELECT (ARRAY['open','investigating','resolved','resolved'])[1 + n % 4] AS status) s`,
    [spaceId, INCIDENTS, productId],
  );
  // The per-status counters the service keeps in its transactions, as it would have kept them.
  await client.query(
    `INSERT INTO quality_incident_counts (space_id, status, shard, total)
     SELECT space_id, status, 0, count(*) FROM quality_incidents WHERE space_id = $1 GROUP BY 1, 2
     ON CONFLICT (space_id, status, shard) DO UPDATE SET total = EXCLUDED.total`,
    [spaceId],
  );
  await client.query('VACUUM ANALYZE quality_incidents');
}

async function timeRuns(base, token, checkId, times) {
  const ms = [];
  let last;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    last = await api(base, token, 'POST', `/quality/checks/${checkId}/run`);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)], last };
}

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_quality');
  const source = await scratchDatabase('verity_bench_quality_src');
  const server = await startProcess({
    env: {
      DATABASE_URL: url,
      RATE_LIMIT_ENABLED: 'false',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    },
  });
  try {
    const password = 'bench-password-1';
    await register(server.base, 'quality@example.test', password);
    const token = await signIn(server.base, 'quality@example.test', password);

    // 1. Alert ingestion with correlation.
    const graphSpace = await api(server.base, token, 'POST', '/spaces', { name: 'Bench lineage' });
    let t0 = performance.now();
    const edges = await seedGraph(client, graphSpace.id);
    console.log(`seeded ${PRODUCTS} products and ${edges} lineage edges in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const ids = (await client.query(`SELECT id FROM products WHERE space_id = $1`, [graphSpace.id])).rows.map((r) => r.id);
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const severities = ['low', 'medium', 'high', 'critical'];
    const ingestion = await measure('POST /alerts (correlated, 100k-node graph)', {
      url: `${server.base}/api/v1.0/spaces/${graphSpace.slug}/alerts`,
      method: 'POST',
      connections: Number(process.env.BENCH_ALERT_CONNECTIONS ?? 10),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest(req) {
            return {
              ...req,
              body: JSON.stringify({
                product_id: ids[Math.floor(random() * ids.length)],
                alert_type: 'anomaly',
                severity: severities[Math.floor(random() * 4)],
                message: 'bench',
              }),
            };
          },
        },
      ],
    });
    const [{ alerts, incidents }] = (
      await client.query(
        `SELECT (SELECT count(*)::int FROM quality_alerts WHERE space_id = $1) AS alerts,
                (SELECT count(*)::int FROM quality_incidents WHERE space_id = $1) AS incidents`,
        [graphSpace.id],
      )
    ).rows;

    // 2. Incident list with 100k incidents.
    const listSpace = await api(server.base, token, 'POST', '/spaces', { name: 'Bench incidents' });
    const anchor = await api(server.base, token, 'POST', `/catalog/spaces/${listSpace.slug}/products`, { name: 'anchor' });
    t0 = performance.now();
    await seedIncidents(client, listSpace.id, anchor.id);
    console.log(`seeded ${INCIDENTS} incidents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const auth = { authorization: `Bearer ${token}` };
    const listAll = await measure('GET /incidents?limit=50 (100k)', {
      url: `${server.base}/api/v1.0/spaces/${listSpace.slug}/incidents?limit=50`,
      headers: auth,
      connections: 4,
    });
    const listOpen = await measure('GET /incidents?status=open (100k)', {
      url: `${server.base}/api/v1.0/spaces/${listSpace.slug}/incidents?status=open&limit=50`,
      headers: auth,
      connections: 4,
    });
    const deepPage = await measure('GET /incidents?skip=5000 (100k)', {
      url: `${server.base}/api/v1.0/spaces/${listSpace.slug}/incidents?skip=5000&limit=50`,
      headers: auth,
      connections: 4,
    });

    // 3. row_count on a 10M-row source table.
    t0 = performance.now();
    await source.client.query(`CREATE TABLE big AS SELECT n AS id, md5(n::text) AS payload FROM generate_series(1, $1) n`, [SOURCE_ROWS]);
    await source.client.query('ANALYZE big');
    console.log(`seeded a ${SOURCE_ROWS}-row source table in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const connector = await api(server.base, token, 'POST', `/connectors/spaces/${listSpace.slug}`, {
      name: 'Bench source',
      connector_type: 'postgresql',
      config: { connection_string: source.url },
    });
    const check = (approximate) =>
      api(server.base, token, 'POST', `/spaces/${listSpace.slug}/quality/checks`, {
        product_id: anchor.id,
        connector_id: connector.id,
        name: approximate ? 'approximate' : 'exact',
        check_type: 'row_count',
        severity: 'low',
        config: { table: 'big', min: 1, approximate },
      });
    const approximateCheck = await check(true);
    const exactCheck = await check(false);
    const approximate = await timeRuns(server.base, token, approximateCheck.id, 5);
    const exact = await timeRuns(server.base, token, exactCheck.id, 3);

    console.log('\n== quality and incidents (real PostgreSQL) ==');
    report([ingestion], null);
    console.log(
      `  ${alerts} alerts correlated into ${incidents} incidents; target 500 alerts/s: ${ingestion.rps >= 500 ? 'met' : 'NOT met'}`,
    );
    report([listAll, listOpen, deepPage], null);
    console.log(`  target p99 < 20 ms at 4 connections: ${Math.max(listAll.p99, listOpen.p99) < 20 ? 'met' : 'NOT met'}`);
    console.log(
      `row_count on ${SOURCE_ROWS} rows: approximate ${approximate.median.toFixed(1)} ms (observed ${approximate.last.observed_value}), ` +
        `exact ${exact.median.toFixed(1)} ms (observed ${exact.last.observed_value}); median of HTTP round trips incl. connect`,
    );
  } finally {
    await server.stop();
    await client.end();
    await source.client.end();
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS verity_bench_quality_src WITH (FORCE)');
    await admin.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
