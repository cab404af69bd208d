// Governance benchmark on real PostgreSQL, served by the built app (dist/main.js):
//  - evaluate-all with 10 policies over 100,000 products (target < 2 s), cold (every outcome
//    written) and warm (outcomes unchanged, nothing rewritten);
//  - re-evaluation lag after a product update, commit to updated evaluation, at 50 updates/s
//    (target p99 < 200 ms);
//  - risk heat map over 10,000 risks (target p99 < 20 ms);
//  - catalog-inventory report preview and send for 100,000 products (target < 5 s, bounded memory:
//    the server's peak RSS is printed).
//
//   npm run bench -- governance          (builds first)
//   BENCH_PRODUCTS=20000 BENCH_LAG_SECONDS=5 node bench/governance.bench.mjs   (a quick check)
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { DURATION, measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const RISKS = Number(process.env.BENCH_RISKS ?? 10_000);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 10);
const UPDATES_PER_SECOND = 50;
// BENCH_DATABASE: a scratch database of another name, when several checkouts bench at once.
const DB = process.env.BENCH_DATABASE ?? 'verity_bench_governance';

const POLICIES = [
  ['Owned', 'ownership', 'size(product.owners) > 0'],
  ['Documented', 'documentation', 'product.description != null && size(product.description) >= 20'],
  ['Classified', 'classification', 'product.sensitivity != null && product.criticality != null'],
  ['Freshness SLA', 'data_quality', 'product.product_type != "dataset" || product.sla_freshness_minutes != null'],
  ['No open incidents', 'data_quality', 'product.open_incident_count == 0'],
  ['PII restricted', 'privacy', '!("pii" in product.tags) || product.sensitivity == "restricted"'],
  ['Owner emails', 'security', 'product.owners.all(o, o.email.endsWith("@example.test"))'],
  ['Domain set', 'custom', 'product.domain != null'],
  ['Recent', 'lifecycle', 'product.updated_at > timestamp("2020-01-01T00:00:00Z")'],
  ['Has n', 'custom', 'product.attributes.n > 0'],
];

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function main() {
  const { url, client } = await scratchDatabase(DB);
  const server = await startProcess({ env: { DATABASE_URL: url, JWT_SECRET: 'bench-secret-bench-secret-bench-secret' } });
  const api = `${server.base}/api/v1.0`;
  try {
    const email = `bench-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    const user = await register(server.base, email, password);
    const token = await signIn(server.base, email, password);
    const call = async (method, path, body) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : null;
    };
    const space = await call('POST', '/spaces', { name: 'Governance bench', slug: 'gov-bench' });

    let started = Date.now();
    await client.query(
      `INSERT INTO products (space_id, name, description, product_type, domain, tags, attributes)
       SELECT $1, 'product-' || lpad(g::text, 6, '0'),
              CASE WHEN g % 3 = 0 THEN NULL ELSE 'Benchmark product number ' || g END,
              (ARRAY['dataset','dashboard','ml_model','pipeline'])[1 + g % 4],
              CASE WHEN g % 5 = 0 THEN NULL ELSE 'domain-' || (g % 7) END,
              CASE WHEN g % 10 = 0 THEN ARRAY['pii'] ELSE ARRAY['bench'] END,
              CASE WHEN g % 50 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('n', g) END
         FROM generate_series(1, ${PRODUCTS}) g`,
      [space.id],
    );
    await client.query(
      `INSERT INTO product_counts (space_id, shard, total) SELECT $1, 0, count(*) FROM products WHERE space_id = $1
       ON CONFLICT (space_id, shard) DO UPDATE SET total = EXCLUDED.total`,
      [space.id],
    );
    await client.query(
      `INSERT INTO product_roles (product_id, user_id, role)
       SELECT id, $2, 'owner' FROM products WHERE space_id = $1 AND right(name, 1) IN ('0', '2', '4', '6')`,
      [space.id, user.id],
    );
    await client.query(
      `INSERT INTO risks (space_id, title, category, likelihood, impact, score, tier)
       SELECT $1, 'risk ' || g, 'other', l, i, s, CASE WHEN s <= 4 THEN 'low' WHEN s <= 9 THEN 'medium' WHEN s <= 16 THEN 'high' ELSE 'critical' END
         FROM (SELECT g, (ARRAY['rare','unlikely','possible','likely','almost_certain'])[1 + g % 5] AS l,
                      (ARRAY['negligible','minor','moderate','major','severe'])[1 + (g / 5) % 5] AS i,
                      (1 + g % 5) * (1 + (g / 5) % 5) AS s
                 FROM generate_series(1, ${RISKS}) g) x`,
      [space.id],
    );
    await client.query('ANALYZE');
    console.log(`seeded ${PRODUCTS} products and ${RISKS} risks in ${Date.now() - started} ms`);

    // Created disabled (no background run), then switched on together, so evaluate-all does the first run.
    const policyIds = [];
    for (const [name, policy_type, rule_expression] of POLICIES) {
      const p = await call('POST', `/spaces/${space.slug}/policies`, {
        name,
        policy_type,
        rule_expression,
        severity: 'medium',
        is_enabled: false,
      });
      policyIds.push(p.id);
    }
    await client.query(`UPDATE policies SET is_enabled = true WHERE id = ANY($1::uuid[])`, [policyIds]);

    const timed = async (title, fn) => {
      const t0 = performance.now();
      const result = await fn();
      const ms = Math.round(performance.now() - t0);
      console.log(`${title.padEnd(58)} ${String(ms).padStart(6)} ms`);
      return result;
    };
    const cold = await timed(`evaluate-all, 10 policies x ${PRODUCTS} products (cold)`, () =>
      call('POST', `/spaces/${space.slug}/policies/evaluate-all`),
    );
    console.log(`  ${JSON.stringify(cold)}`);
    for (let i = 1; i <= 2; i++) {
      await timed(`evaluate-all, 10 policies x ${PRODUCTS} products (warm ${i})`, () =>
        call('POST', `/spaces/${space.slug}/policies/evaluate-all`),
      );
    }

    // Re-evaluation lag: flip a product's owners at 50 updates/s; the lag runs from the PATCH
    // answer (the commit) until its "Owned" evaluation shows the new outcome.
    const sample = (
      await client.query(
        `SELECT id FROM products WHERE space_id = $1 AND right(name, 1) IN ('0', '2', '4', '6') ORDER BY random() LIMIT 2000`,
        [space.id],
      )
    ).rows.map((r) => r.id);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const owned = policyIds[0];
    const lags = [];
    const pending = [];
    const total = LAG_SECONDS * UPDATES_PER_SECOND;
    started = performance.now();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / UPDATES_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const productId = sample[i % sample.length];
      const owner_ids = (i / sample.length) % 2 < 1 ? [] : [user.id];
      const expected = owner_ids.length ? 'compliant' : 'non_compliant';
      pending.push(
        (async () => {
          // Sampled products start owned, so every update flips their "Owned" outcome.
          await call('PATCH', `/catalog/spaces/${space.slug}/products/${productId}`, { owner_ids });
          const committed = performance.now();
          for (;;) {
            const row = (
              await pool.query(`SELECT status FROM policy_evaluations WHERE policy_id = $1 AND product_id = $2`, [
                owned,
                productId,
              ])
            ).rows[0];
            if (row?.status === expected) break;
            if (performance.now() - committed > 10_000) throw new Error('re-evaluation did not happen within 10 s');
            await new Promise((r) => setTimeout(r, 2));
          }
          lags.push(performance.now() - committed);
        })(),
      );
    }
    await Promise.all(pending);
    await pool.end();
    console.log(
      `re-evaluation lag at ${UPDATES_PER_SECOND} updates/s (${lags.length} updates)`.padEnd(58) +
        ` p50 ${pct(lags, 50).toFixed(0)} ms  p99 ${pct(lags, 99).toFixed(0)} ms  max ${Math.max(...lags).toFixed(0)} ms`,
    );

    const rows = [];
    rows.push(
      await measure(`heat map over ${RISKS} risks`, {
        url: `${api}/catalog/spaces/${space.slug}/risk-register/heat-map`,
        headers: { authorization: `Bearer ${token}` },
        duration: Math.min(DURATION, 10),
      }),
    );
    report(rows);

    const schedule = await call('POST', `/spaces/${space.slug}/reports`, {
      name: 'Inventory',
      report_type: 'catalog_inventory',
      frequency: 'weekly',
      recipients: ['bench@example.test'],
    });
    const rss = () => {
      const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
      const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))[1]);
      return `RSS ${Math.round(kb('VmRSS') / 1024)} MB, peak ${Math.round(kb('VmHWM') / 1024)} MB`;
    };
    console.log(`server before reports: ${rss()}`);
    await timed(`catalog-inventory preview, ${PRODUCTS} products`, () =>
      call('GET', `/spaces/${space.slug}/reports/${schedule.id}/preview`),
    );
    await timed(`catalog-inventory send (CSV into the mail outbox)`, () =>
      call('POST', `/spaces/${space.slug}/reports/${schedule.id}/send`),
    );
    console.log(`server after reports: ${rss()}`);
  } finally {
    await server.stop();
    await client.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
