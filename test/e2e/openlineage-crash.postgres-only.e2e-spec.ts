import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cloneDatabase, dropDatabase, TEMPLATE_SEEDED } from '../support/database';
import {
  buildIfNeeded,
  eventually,
  runServer,
  ServerProcess,
  waitUntilHealthy,
  rootJsonHeaders,
} from '../support/server-process';

const REQUESTS = 40;
const PER_REQUEST = 10;
const DATASETS = 'postgres://crash-warehouse:5432';

/** The built server, one process (no cluster), so that killing it kills its processor. */
async function startServer(databaseUrl: string, dataDir: string): Promise<ServerProcess> {
  const server = await runServer({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    WEB_CONCURRENCY: '1',
  });
  await waitUntilHealthy(server);
  return server;
}

/** Job `n` reads `in_n` and writes `out_n`: two products and one edge per event. */
const runEvent = (n: number) => ({
  eventType: 'COMPLETE',
  eventTime: new Date().toISOString(),
  producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.13.1/client/python',
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId: randomUUID() },
  job: { namespace: 'crash-jobs', name: `job_${n}` },
  inputs: [{ namespace: DATASETS, name: `shop.raw.in_${n}` }],
  outputs: [{ namespace: DATASETS, name: `shop.mart.out_${n}` }],
});

// PostgreSQL only: it runs two server processes, one after the other, on one database.
describe('OpenLineage ingestion killed with -9', () => {
  const name = `verity_ol_crash_${process.pid}`;
  let db: Client;

  beforeAll(async () => {
    buildIfNeeded();
    db = new Client({ connectionString: await cloneDatabase(TEMPLATE_SEEDED, name) });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db.end();
    await dropDatabase(name);
  });

  it('loses no acknowledged event, and applies each once after the restart', async () => {
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'verity-ol-crash-'));
    const first = await startServer(url, dataDir);
    const headers = await rootJsonHeaders(first.base);
    const space = await fetch(`${first.base}/spaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'OpenLineage crash' }),
    }).then((r) => r.json() as Promise<{ id: string; slug: string }>);
    const mapped = await fetch(`${first.base}/spaces/${space.slug}/openlineage/namespaces`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        items: [
          { namespace: DATASETS, create_products: true },
          { namespace: 'crash-jobs', create_products: false },
        ],
      }),
    });
    expect(mapped.status).toBe(200);
    const key = await fetch(`${first.base}/api-keys/me/api-keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'crash' }),
    }).then((r) => r.json() as Promise<{ key: string }>);

    // Slow the processor down (each new edge takes 20 ms) so that the kill lands mid-batch.
    await db.query(
      `CREATE FUNCTION ol_crash_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.02); RETURN NEW; END $$`,
    );
    await db.query(
      `CREATE TRIGGER ol_crash_slow BEFORE INSERT ON lineage_edges FOR EACH ROW EXECUTE FUNCTION ol_crash_slow()`,
    );
    const acknowledged: number[] = [];
    const sends = Array.from({ length: REQUESTS }, (_, r) =>
      fetch(`${first.base}/openlineage/api/v1/lineage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(Array.from({ length: PER_REQUEST }, (_, i) => runEvent(r * PER_REQUEST + i))),
      }).then(
        (res) => {
          if (res.status === 201) acknowledged.push(r);
        },
        () => undefined,
      ),
    );
    // Killed once requests were acknowledged and a first batch committed (the next one is under way),
    // with other requests perhaps still in flight.
    await eventually('some acknowledged requests', () => acknowledged.length >= REQUESTS / 2);
    await eventually('a first batch applied', async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM lineage_edges WHERE job_namespace = 'crash-jobs'`,
      );
      return rows[0].n === 0 ? false : true;
    });
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    await Promise.all(sends);

    // The batch in flight rolled back: nothing is marked applied without its effects.
    const applied = await db.query(
      `SELECT count(*)::int AS n FROM openlineage_events WHERE processed_at IS NOT NULL`,
    );
    const edges = await db.query(
      `SELECT count(*)::int AS n FROM lineage_edges WHERE job_namespace = 'crash-jobs'`,
    );
    expect(edges.rows[0].n).toBe(applied.rows[0].n);

    await db.query('DROP TRIGGER ol_crash_slow ON lineage_edges');
    const second = await startServer(url, dataDir);
    try {
      await eventually(
        'every stored event applied',
        async () =>
          (await db.query(`SELECT count(*)::int AS n FROM openlineage_events WHERE processed_at IS NULL`))
            .rows[0].n === 0,
        60_000,
      );
      const jobs = (
        await db.query<{ name: string }>(`SELECT payload->'job'->>'name' AS name FROM openlineage_events`)
      ).rows.map((row) => row.name);
      // Every event of every acknowledged request is stored.
      for (const r of acknowledged) {
        for (let i = 0; i < PER_REQUEST; i++) expect(jobs).toContain(`job_${r * PER_REQUEST + i}`);
      }
      // Applied once each: one edge and two products per stored event.
      const after = await db.query(
        `SELECT (SELECT count(*)::int FROM lineage_edges WHERE job_namespace = 'crash-jobs') AS edges,
                (SELECT count(*)::int FROM products WHERE space_id = $1) AS products`,
        [space.id],
      );
      expect(after.rows[0]).toEqual({ edges: jobs.length, products: 2 * jobs.length });
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  }, 180_000);
});
