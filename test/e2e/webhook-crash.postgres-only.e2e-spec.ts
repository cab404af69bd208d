import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cloneDatabase, dropDatabase, TEMPLATE_SEEDED } from '../support/database';
import {
  buildIfNeeded,
  runServer,
  ServerProcess,
  waitUntilHealthy,
  rootJsonHeaders,
} from '../support/server-process';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const EVENTS = 300;

/** The built server, one process (no cluster), so that killing it kills the dispatcher. */
async function startServer(databaseUrl: string, dataDir: string): Promise<ServerProcess> {
  const server = await runServer({
    DATABASE_URL: databaseUrl,
    // The same directory across the restart: it holds the generated encryption key.
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    LOG_LEVEL: 'error',
    WEB_CONCURRENCY: '1',
  });
  await waitUntilHealthy(server);
  return server;
}

// PostgreSQL only: it runs two server processes, one after the other, on one database.
describe('a dispatcher killed mid-batch', () => {
  const name = `verity_crash_${process.pid}`;
  let db: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    buildIfNeeded();
    db = new Client({ connectionString: await cloneDatabase(TEMPLATE_SEEDED, name) });
    await db.connect();
    receiver = await startWebhookReceiver();
  }, 180_000);
  afterAll(async () => {
    await receiver.close();
    await db.end();
    await dropDatabase(name);
  });

  it('loses nothing: every event is delivered, each with one stable webhook-id', async () => {
    const url = `postgres://postgres@127.0.0.1:5432/${name}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'verity-crash-'));
    const first = await startServer(url, dataDir);
    const headers = await rootJsonHeaders(first.base);
    const space = await fetch(`${first.base}/spaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Crash test' }),
    }).then((r) => r.json() as Promise<{ id: string; slug: string }>);
    const hook = await fetch(`${first.base}/spaces/${space.slug}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, event_types: ['product.created'] }),
    });
    expect(hook.status).toBe(201);

    // Slow each delivery insert down so that a batch of 100 events takes about a second to dispatch.
    await db.query(
      `CREATE FUNCTION crash_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.01); RETURN NEW; END $$`,
    );
    await db.query(
      `CREATE TRIGGER crash_slow BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION crash_slow()`,
    );
    await db.query(
      `INSERT INTO outbox_events (type, space_id, payload)
       SELECT 'product.created', $1::uuid, jsonb_build_object('product_id', gen_random_uuid(), 'space_id', $1::text, 'name', 'p' || n)
         FROM generate_series(1, $2) AS n`,
      [space.id, EVENTS],
    );
    await db.query(`SELECT pg_notify('verity_wakeup', 'outbox')`);
    await new Promise((r) => setTimeout(r, 500));
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    // The batch in flight rolled back with the process: no event is marked published without its deliveries.
    const [{ published }] = (
      await db.query(
        `SELECT count(*)::int AS published FROM outbox_events WHERE type = 'product.created' AND published_at IS NOT NULL`,
      )
    ).rows;
    const [{ deliveries }] = (await db.query(`SELECT count(*)::int AS deliveries FROM webhook_deliveries`))
      .rows;
    expect(published).toBeLessThan(EVENTS);
    expect(deliveries).toBe(published);

    await db.query('DROP TRIGGER crash_slow ON webhook_deliveries');
    const second = await startServer(url, dataDir);
    try {
      const requests = await receiver.waitForCount(EVENTS, 60_000);
      const idsByProduct = new Map<string, Set<string>>();
      for (const request of requests) {
        const productId = (JSON.parse(request.body) as { data: { product_id: string } }).data.product_id;
        const ids = idsByProduct.get(productId) ?? new Set<string>();
        ids.add(String(request.headers['webhook-id']));
        idsByProduct.set(productId, ids);
      }
      expect(idsByProduct.size).toBe(EVENTS);
      for (const ids of idsByProduct.values()) expect(ids.size).toBe(1);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  }, 120_000);
});
