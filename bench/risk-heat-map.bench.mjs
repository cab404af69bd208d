// Risk heat map on real PostgreSQL, served by the built app (dist/main.js), at 10 connections over
// 10,000 risks of one space (target p99 < 20 ms): the whole map (counts and the first ids of each
// cell), the map with counts only, and one cell's page of ids. governance.bench.mjs measures the
// whole map too, after its 100,000-product policy runs; this one seeds only the risks.
//
//   npm run bench -- risk-heat-map          (builds first)
//   BENCH_RISKS=10000 BENCH_DURATION=10 node bench/risk-heat-map.bench.mjs
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

const RISKS = Number(process.env.BENCH_RISKS ?? 10_000);
const DB = 'verity_bench_risk_heat_map';

async function main() {
  const { url, client } = await scratchDatabase(DB);
  const server = await startProcess({
    env: { DATABASE_URL: url, JWT_SECRET: 'bench-secret-bench-secret-bench-secret' },
  });
  const api = `${server.base}/api/v1.0`;
  try {
    const email = `bench-${Date.now()}@example.test`;
    const password = 'bench-password-1';
    await register(server.base, email, password);
    const token = await signIn(server.base, email, password);
    const headers = { authorization: `Bearer ${token}` };
    const created = await fetch(`${api}/spaces`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Heat map bench', slug: 'heat-map-bench' }),
    });
    if (created.status !== 201) throw new Error(`space: ${created.status} ${await created.text()}`);
    const space = await created.json();
    // As governance.bench.mjs seeds them: spread evenly over the 25 cells.
    await client.query(
      `INSERT INTO risks (space_id, title, category, likelihood, impact, score, tier)
       SELECT $1, 'risk ' || g, 'other', l, i, s, CASE WHEN s <= 4 THEN 'low' WHEN s <= 9 THEN 'medium' WHEN s <= 16 THEN 'high' ELSE 'critical' END
         FROM (SELECT g, (ARRAY['rare','unlikely','possible','likely','almost_certain'])[1 + g % 5] AS l,
                      (ARRAY['negligible','minor','moderate','major','severe'])[1 + (g / 5) % 5] AS i,
                      (1 + g % 5) * (1 + (g / 5) % 5) AS s
                 FROM generate_series(1, ${RISKS}) g) x`,
      [space.id],
    );
    await client.query('VACUUM ANALYZE risks');
    const map = `${api}/catalog/spaces/${space.slug}/risk-register/heat-map`;
    const probe = await fetch(map, { headers });
    const body = await probe.text();
    if (!probe.ok) throw new Error(`heat map: ${probe.status} ${body}`);
    console.log(`seeded ${RISKS} risks; the whole map is ${body.length} bytes`);
    report([
      // The same server's cheapest authenticated read: the machine's baseline at this load.
      await measure('GET /auth/me (baseline)', { url: `${api}/auth/me`, headers }),
      await measure(`heat map over ${RISKS} risks`, { url: map, headers }),
      await measure(`heat map, counts only (limit=0)`, { url: `${map}?limit=0`, headers }),
      await measure(`one cell, page of 100 at offset 200`, {
        url: `${map}?likelihood=likely&impact=major&limit=100&offset=200`,
        headers,
      }),
    ]);
  } finally {
    await server.stop();
    await client.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
