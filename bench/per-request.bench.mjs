// Issue 11: the per-request cost of small reads and writes, per process and with
// WEB_CONCURRENCY worker processes, at 50 connections on real PostgreSQL with
// 100k products, 100k incidents and 100k notifications (the comparison table's data).
//
//   npm run bench -- per-request
//   BENCH_WORKERS=1,2 BENCH_CONNECTIONS=50 BENCH_DURATION=10 node bench/per-request.bench.mjs
//   BENCH_PROFILE=/tmp/prof node bench/per-request.bench.mjs   (one process under --cpu-prof)
//   BENCH_PG_SOCKET_DIR=/var/run/postgresql ...   (the server reaches PostgreSQL over its Unix socket)
import { availableParallelism, loadavg } from 'node:os';
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const ROWS = 100_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_PROFILE;
const SOCKET_DIR = process.env.BENCH_PG_SOCKET_DIR;

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}/api/v1.0${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function seed(client, spaceId, userId) {
  await client.query(
    `INSERT INTO users (email, password_hash, first_name, last_name)
     SELECT 'user' || n || '@example.test', 'x', 'User', 'N' || n FROM generate_series(1, 10000) AS n`,
  );
  await client.query(
    `INSERT INTO products (space_id, name, description, product_type, tags, attributes)
     SELECT $1, 'product-' || lpad(g::text, 6, '0'), 'Benchmark product ' || g,
            (ARRAY['dataset','dashboard','ml_model','pipeline'])[1 + g % 4], ARRAY['bench'], jsonb_build_object('n', g)
       FROM generate_series(1, $2) g`,
    [spaceId, ROWS],
  );
  await client.query(
    `INSERT INTO product_counts (space_id, shard, total) SELECT $1, 0, count(*) FROM products WHERE space_id = $1
     ON CONFLICT (space_id, shard) DO UPDATE SET total = EXCLUDED.total`,
    [spaceId],
  );
  await client.query(
    `INSERT INTO product_roles (product_id, user_id, role)
     SELECT id, $2, 'owner' FROM products WHERE space_id = $1 AND right(name, 1) = '0'`,
    [spaceId, userId],
  );
  const [{ id: productId }] = (await client.query(`SELECT id FROM products WHERE space_id = $1 LIMIT 1`, [spaceId])).rows;
  await client.query(
    `INSERT INTO quality_incidents (space_id, title, status, severity, alert_count, root_product_id, created_at, updated_at, resolved_at)
     SELECT $1, 'Incident ' || n, s.status, (ARRAY['low','medium','high','critical'])[1 + n % 4], 1 + n % 5, $3,
            now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval,
            CASE WHEN s.status = 'resolved' THEN now() - (n || ' minutes')::interval END
       FROM generate_series(1, $2) n
       CROSS JOIN LATERAL (SELECT (ARRAY['open','investigating','resolved','resolved'])[1 + n % 4] AS status) s`,
    [spaceId, ROWS, productId],
  );
  await client.query(
    `INSERT INTO quality_incident_counts (space_id, status, shard, total)
     SELECT space_id, status, 0, count(*) FROM quality_incidents WHERE space_id = $1 GROUP BY 1, 2
     ON CONFLICT (space_id, status, shard) DO UPDATE SET total = EXCLUDED.total`,
    [spaceId],
  );
  await client.query(
    `INSERT INTO notifications (user_id, type, title, message, read)
     SELECT $1, (ARRAY['quality_alert','issue_assigned','access_submitted'])[1 + n % 3], 'n' || n, 'message', n % 2 = 0
       FROM generate_series(1, $2) AS n`,
    [userId, ROWS],
  );
  await client.query(
    `INSERT INTO notification_counters (user_id, type, shard, unread, total)
     SELECT user_id, type, 0, count(*) FILTER (WHERE NOT read), count(*) FROM notifications WHERE user_id = $1 GROUP BY user_id, type
     ON CONFLICT DO NOTHING`,
    [userId],
  );
  await client.query('VACUUM ANALYZE');
  return productId;
}

/** POST /spaces with a fresh name on every request (a repeated name would be a 409). */
function createSpaceRequests(prefix) {
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/api/v1.0/spaces',
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `${prefix} ${++n}` }) }),
    },
  ];
}

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_per_request');
  // Migrate once with a throwaway server, then seed.
  const setup = await startProcess({ env: { DATABASE_URL: url, WEB_CONCURRENCY: '1' } });
  const password = 'bench-password-1';
  const me = await register(setup.base, 'bench@example.test', password);
  let token = await signIn(setup.base, 'bench@example.test', password);
  const space = await api(setup.base, 'POST', '/spaces', token, { name: 'Bench space' });
  await setup.stop();
  const productId = await seed(client, space.id, me.id);

  try {
    for (const workers of WORKERS) {
      const env = { DATABASE_URL: SOCKET_DIR ? `${url}?host=${SOCKET_DIR}` : url, WEB_CONCURRENCY: String(workers) };
      const server = await startProcess({
        env,
        nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
      });
      token = await signIn(server.base, 'bench@example.test', password);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const spaceBase = `${server.base}/api/v1.0/catalog/spaces/${space.slug}`;
      const options = { connections: CONNECTIONS };
      const rows = [
        await measure('GET /health', { ...options, url: `${server.base}/api/v1.0/health` }),
        await measure('GET /auth/me', { ...options, url: `${server.base}/api/v1.0/auth/me`, headers }),
        await measure('GET /preferences', { ...options, url: `${server.base}/api/v1.0/preferences`, headers }),
        await measure('GET one product', { ...options, url: `${spaceBase}/products/${productId}`, headers }),
        await measure('POST /spaces', {
          ...options,
          url: server.base,
          headers,
          requests: createSpaceRequests(`Bench ${workers} ${Date.now()}`),
        }),
        await measure('GET products (50 of 100k)', { ...options, url: `${spaceBase}/products?limit=50`, headers }),
        await measure('GET incidents (50 of 100k)', {
          ...options,
          url: `${server.base}/api/v1.0/spaces/${space.slug}/incidents?limit=50`,
          headers,
        }),
        await measure('GET notifications (50 of 100k)', {
          ...options,
          url: `${server.base}/api/v1.0/notifications?size=50`,
          headers,
        }),
        await measure('GET /notifications/unread-count', {
          ...options,
          url: `${server.base}/api/v1.0/notifications/unread-count`,
          headers,
        }),
      ];
      await server.stop();
      console.log(
        `\n== per request: WEB_CONCURRENCY=${workers}, ${CONNECTIONS} connections, ${availableParallelism()} cores, ` +
          `PostgreSQL over ${SOCKET_DIR ? 'a Unix socket' : 'TCP'}, ` +
          `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} ==`,
      );
      report(rows, null);
    }
  } finally {
    await client.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
