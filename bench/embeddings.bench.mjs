// Embeddings benchmark on real PostgreSQL (the built server, one process):
//  - reindex throughput of 100,000 products with the local hashing embedder (items/s), and the
//    server's resident memory while it runs (batches are bounded, so it should stay flat);
//  - semantic search over the API on the resulting vectors (one space of 100,000 products, top 20),
//    its recall against a plain exact cosine scan in SQL, and that scan's time.
//
//   npm run bench -- embeddings     (builds first)
//   BENCH_EMBED_PRODUCTS=20000 node bench/embeddings.bench.mjs   (a quick check)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { scratchDatabase, startProcess } from './lib.mjs';

const { hashingEmbed } = createRequire(import.meta.url)('../dist/modules/embeddings/providers/hashing-embedder.js');

const PRODUCTS = Number(process.env.BENCH_EMBED_PRODUCTS ?? 100_000);
const NEAREST_RUNS = 20;
// A plain exact scan over 100,000 vectors takes seconds: a few probes are enough to compare.
const EXACT_RUNS = 3;
const DB = 'verity_bench_embeddings';
const API = '/api/v1.0';

const WORDS = (
  'customer orders revenue region daily snapshot invoice payment refund churn marketing campaign lead ' +
  'warehouse stock shipment supplier contract employee payroll pension audit log retention privacy consent ' +
  'sensor telemetry turbine vibration forecast model training feature store dashboard kpi finance ledger'
).split(' ');

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Resident memory of a process in MB (Linux). */
function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function main() {
  const { url, client } = await scratchDatabase(DB);
  const server = await startProcess({
    env: { DATABASE_URL: url, WEB_CONCURRENCY: '1', ACCESS_LOG: 'false', JWT_SECRET: 'bench-secret-bench-secret-bench-secret' },
  });
  try {
    const call = async (method, path, token, body) => {
      const res = await fetch(`${server.base}${API}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? null : res.json();
    };
    // The first account may make itself superadmin.
    await call('POST', '/auth/register', null, {
      email: 'bench-root@example.test',
      password: 'bench-password-1',
      first_name: 'Bench',
      last_name: 'Root',
      is_superadmin: true,
    });
    const login = await fetch(`${server.base}${API}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'bench-root@example.test', password: 'bench-password-1' }),
    }).then((r) => r.json());
    const token = login.access_token;
    const space = await call('POST', '/spaces', token, { name: 'Embedding bench' });

    let started = Date.now();
    // Seeded in SQL (no events): only the reindex embeds them. Descriptions of 6 to 12 words from a small vocabulary.
    await client.query(
      `INSERT INTO products (space_id, name, description, product_type, domain, tags)
       SELECT $1, 'product-' || lpad(g::text, 6, '0'),
              (SELECT string_agg(($2::text[])[1 + (g * 7 + k * 13) % array_length($2::text[], 1)], ' ')
                 FROM generate_series(1, 6 + g % 7) k),
              (ARRAY['dataset','dashboard','ml_model','pipeline'])[1 + g % 4],
              (ARRAY['sales','finance','operations','people'])[1 + g % 4],
              ARRAY['bench', 'layer-' || g % 10]
         FROM generate_series(1, ${PRODUCTS}) g`,
      [space.id, WORDS],
    );
    await client.query('VACUUM ANALYZE products');
    console.log(`seeded ${PRODUCTS} products in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const config = await call('GET', '/admin/embedding-config/', token);
    console.log(`provider ${config.provider} (${config.model_name}, ${config.dimensions} dims), vector store ${config.vector_store}`);
    const baseline = rssMb(server.pid);
    const samples = [];
    const timer = setInterval(() => samples.push(rssMb(server.pid)), 250);
    started = Date.now();
    const queued = await call('POST', '/admin/embedding-config/reindex-products', token);
    let status;
    for (;;) {
      status = await call('GET', '/admin/embedding-config/reindex-status', token);
      if (status.state === 'succeeded' || status.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    clearInterval(timer);
    const wall = (Date.now() - started) / 1000;
    if (status.state !== 'succeeded') throw new Error(`reindex ${status.state}: ${JSON.stringify(status)}`);
    const runSeconds = (Date.parse(status.finished_at) - Date.parse(status.started_at)) / 1000;
    console.log(
      `reindex ${queued.total} products: ${runSeconds.toFixed(1)} s (wall ${wall.toFixed(1)} s) -> ` +
        `${Math.round(queued.total / runSeconds)} items/s; done ${status.done}, failed ${status.failed}`,
    );
    console.log(
      `server RSS: before ${baseline.toFixed(0)} MB, during reindex median ${pct(samples, 50).toFixed(0)} MB, ` +
        `peak ${Math.max(...samples).toFixed(0)} MB (${samples.length} samples)`,
    );

    // Semantic search over the API (the store the server detected: pgvector's HNSW index, or the
    // in-process copy with exact cosine on its candidates), against a plain exact scan in SQL of the
    // same query vector (the built hashing embedder, as the server embeds it).
    await client.query('VACUUM ANALYZE item_embeddings');
    const queries = Array.from({ length: NEAREST_RUNS }, (_, i) =>
      [0, 1, 2].map((k) => WORDS[(i * 5 + k * 11) % WORDS.length]).join(' '),
    );
    const semantic = { times: [], answers: [] };
    for (const query of [queries[0], ...queries]) {
      const t0 = performance.now();
      const body = await call('POST', '/search', token, { query, mode: 'semantic', types: ['product'], limit: 20 });
      semantic.times.push(performance.now() - t0);
      semantic.answers.push(body.items.map((item) => item.score));
    }
    // The first call warms the server's vector copy; it is left out.
    semantic.times.shift();
    semantic.answers.shift();
    const exactSql = `SELECT (SELECT sum(a::float8 * b) FROM unnest(e.embedding, $1::real[]) AS t(a, b)) AS score
        FROM item_embeddings e WHERE e.item_type = 'product' AND e.space_id = $2
       ORDER BY score DESC NULLS LAST LIMIT 20`;
    const exact = { times: [], answers: [] };
    for (const query of queries.slice(0, EXACT_RUNS)) {
      const vector = hashingEmbed(query, config.dimensions);
      const t0 = performance.now();
      const { rows } = await client.query(exactSql, [`{${vector.join(',')}}`, space.id]);
      exact.times.push(performance.now() - t0);
      exact.answers.push(rows.map((row) => row.score));
    }
    // By score, not id: many seeded products share their words and tie.
    let found = 0;
    let wanted = 0;
    exact.answers.forEach((scores, i) => {
      const floor = scores[scores.length - 1] - 1e-6;
      found += semantic.answers[i].filter((score) => score >= floor).length;
      wanted += scores.length;
    });
    console.log(
      `POST /search semantic, top 20 of ${PRODUCTS} products (${config.vector_store}), one caller: ` +
        `p50 ${pct(semantic.times, 50).toFixed(1)} ms, p99 ${pct(semantic.times, 99).toFixed(1)} ms; ` +
        `recall@20 vs exact (${EXACT_RUNS} queries) ${((found / wanted) * 100).toFixed(1)}%`,
    );
    console.log(
      `plain exact cosine in SQL over all ${PRODUCTS}: median ${pct(exact.times, 50).toFixed(0)} ms (${EXACT_RUNS} queries)`,
    );
    console.log(`load average (1/5/15 min): ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
  } finally {
    await server.stop();
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
