import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, IncomingMessage, Server, ServerResponse } from 'node:http';
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
  killServers,
  rootJsonHeaders,
} from '../support/server-process';

const CLIENTS = 16;
const PRODUCTS_PER_CLIENT = 10;
const PRODUCTS = CLIENTS * PRODUCTS_PER_CLIENT;

/**
 * The built server as an operator runs it, one process (no cluster), so that
 * killing it kills the process that holds the deliveries.
 */
async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await runServer({ LOG_LEVEL: 'error', WEB_CONCURRENCY: '1', ...env });
  await waitUntilHealthy(server);
  return server;
}

/** A webhook endpoint that holds every request unanswered until told to answer. */
function startHoldingReceiver() {
  const received = new Map<string, number>();
  const held: { req: IncomingMessage; res: ServerResponse }[] = [];
  let holding = true;
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      if (holding) held.push({ req, res });
      else res.writeHead(200).end();
    });
  });
  return {
    received,
    held,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`),
        ),
      ),
    answerAll() {
      holding = false;
      for (const { res } of held.splice(0)) if (!res.socket?.destroyed) res.writeHead(200).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// PostgreSQL only: two server processes share one database.
describe('a worker process killed in the middle of webhook deliveries', () => {
  const name = `verity_recovery_${process.pid}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const servers: ServerProcess[] = [];
  const receiver = startHoldingReceiver();
  let db: Client;

  beforeAll(async () => {
    buildIfNeeded();
    db = new Client({ connectionString: await cloneDatabase(TEMPLATE_SEEDED, name) });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await killServers(servers);
    await receiver.close();
    await db.end();
    await dropDatabase(name);
  });

  it('has every event reach its endpoint within a minute, with no pg client used concurrently', async () => {
    const hookUrl = await receiver.listen();
    // Both processes must open each other's tokens and webhook secrets.
    const env = {
      DATABASE_URL: url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-recovery-')),
      JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      RATE_LIMIT_ENABLED: 'false',
    };
    const [doomed, survivor] = await Promise.all([startServer(env), startServer(env)]);
    servers.push(doomed, survivor);

    const headers = await rootJsonHeaders(doomed.base);
    const post = (base: string, path: string, body: object) =>
      fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const space = (await (await post(doomed.base, '/spaces', { name: 'Recovery' })).json()) as {
      slug: string;
    };
    const hook = await post(doomed.base, `/spaces/${space.slug}/webhooks`, {
      url: hookUrl,
      event_types: ['product.created'],
    });
    expect(hook.status).toBe(201);

    // Write load: 16 clients, spread over both processes.
    const created = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        const statuses: number[] = [];
        for (let i = 0; i < PRODUCTS_PER_CLIENT; i++) {
          const base = (client + i) % 2 ? doomed.base : survivor.base;
          const res = await post(base, `/catalog/spaces/${space.slug}/products`, {
            name: `p-${client}-${i}`,
          });
          statuses.push(res.status);
        }
        return statuses;
      }),
    );
    expect(created.flat().every((status) => status === 201)).toBe(true);

    // Every delivery is now in flight at one of the two processes: the receiver holds them all.
    await eventually(
      'every delivery sent once',
      () => (receiver.received.size >= PRODUCTS ? true : undefined),
      30_000,
    );
    const killedAt = Date.now();
    doomed.child.kill('SIGKILL');
    await new Promise((resolve) => doomed.child.once('exit', resolve));
    // The dead process was mid-delivery: some held requests lost their connection with it.
    await eventually(
      'a held request of the killed process closed',
      () => (receiver.held.some(({ req }) => req.socket.destroyed) ? true : undefined),
      5_000,
    );
    receiver.answerAll();

    const [{ stuck }] = (
      await db.query(
        `SELECT count(*)::int AS stuck FROM jobs WHERE name = 'webhooks.deliver' AND status = 'running'`,
      )
    ).rows as { stuck: number }[];
    expect(stuck).toBeGreaterThan(0);

    // The survivor takes the dead process's deliveries over once their lease runs out (30 s).
    await eventually(
      'every delivery succeeded',
      async () => {
        const [row] = (
          await db.query(
            `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS ok, count(*)::int AS total FROM webhook_deliveries`,
          )
        ).rows as { ok: number; total: number }[];
        return row.total === PRODUCTS && row.ok === PRODUCTS ? true : undefined;
      },
      60_000 - (Date.now() - killedAt),
    );
    expect(receiver.received.size).toBe(PRODUCTS);
    const deliveryIds = (await db.query(`SELECT id FROM webhook_deliveries`)).rows.map(
      (r: { id: string }) => r.id,
    );
    expect(new Set(receiver.received.keys())).toEqual(new Set(deliveryIds));

    // Two queries at once on one pg connection print this warning (and will fail on pg 9).
    for (const server of servers) expect(server.output()).not.toContain('DeprecationWarning');
  }, 150_000);
});
