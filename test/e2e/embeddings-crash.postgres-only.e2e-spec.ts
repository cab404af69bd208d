import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cloneDatabase, dropDatabase, TEMPLATE_SEEDED } from '../support/database';
import { EmbeddingProviderServer, startEmbeddingProviderServer } from '../support/embedding-provider-server';
import {
  buildIfNeeded,
  eventually,
  runServer,
  ServerProcess,
  waitUntilHealthy,
  killServers,
  rootJsonHeaders,
} from '../support/server-process';

const PRODUCTS = 60;
const BATCH = 10;
const ANSWERED_BEFORE_CRASH = 3;

// PostgreSQL only: two server processes, one after the other, on one database of their own.
describe('a server process killed in the middle of a reindex', () => {
  const name = `verity_embed_crash_${process.pid}`;
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const servers: ServerProcess[] = [];
  let provider: EmbeddingProviderServer;
  let db: Client;

  beforeAll(async () => {
    buildIfNeeded();
    provider = await startEmbeddingProviderServer();
    db = new Client({ connectionString: await cloneDatabase(TEMPLATE_SEEDED, name) });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await killServers(servers);
    await provider.close();
    await db.end();
    await dropDatabase(name);
  });

  it('resumes after the last committed batch: items done before the crash are not embedded again', async () => {
    const env = {
      DATABASE_URL: url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-embed-crash-')),
      JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'error',
      WEB_CONCURRENCY: '1',
      TRUSTED_AI_HOSTS: provider.host,
      EMBEDDING_BATCH_SIZE: String(BATCH),
      // The job of a dead process is taken over once its lease runs out.
      JOB_LEASE_SECONDS: '3',
    };
    const doomed = await runServer(env);
    servers.push(doomed);
    await waitUntilHealthy(doomed);

    const headers = await rootJsonHeaders(doomed.base);
    const call = (base: string, method: string, path: string, body?: object) =>
      fetch(`${base}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });

    const space = (await (await call(doomed.base, 'POST', '/spaces', { name: 'Crash' })).json()) as {
      id: string;
    };
    // Seeded in SQL: no events, so only the reindex embeds them.
    await db.query(
      `INSERT INTO products (space_id, name, description)
       SELECT $1, 'crash product ' || lpad(g::text, 3, '0'), 'row ' || g FROM generate_series(1, $2) g`,
      [space.id, PRODUCTS],
    );
    const configured = await call(doomed.base, 'POST', '/admin/embedding-config/', {
      provider: 'openai',
      model_name: 'text-embedding-3-small',
      dimensions: 16,
      api_key: 'sk-crash-test',
      api_base_url: provider.bases.openai,
    });
    expect(configured.status).toBe(201);

    provider.holdAfter(ANSWERED_BEFORE_CRASH);
    const started = await call(doomed.base, 'POST', '/admin/embedding-config/reindex-products');
    expect(await started.json()).toEqual({ message: expect.any(String), total: PRODUCTS });

    // Three batches answered and committed; the fourth is held at the provider when the process dies.
    await eventually('three batches committed and a fourth in flight', async () => {
      const { rows } = await db.query(`SELECT done FROM embedding_reindex_runs WHERE item_type = 'product'`);
      return (
        rows[0]?.done === ANSWERED_BEFORE_CRASH * BATCH &&
        provider.requests.length === ANSWERED_BEFORE_CRASH + 1
      );
    });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const doneBeforeCrash = new Set(
      provider.requests.slice(0, ANSWERED_BEFORE_CRASH).flatMap((r) => r.texts),
    );
    expect(doneBeforeCrash.size).toBe(ANSWERED_BEFORE_CRASH * BATCH);
    const { rows: before } = await db.query(
      `SELECT item_id, embedded_at FROM item_embeddings WHERE item_type = 'product' ORDER BY item_id`,
    );
    expect(before).toHaveLength(ANSWERED_BEFORE_CRASH * BATCH);
    const requestsBeforeCrash = provider.requests.length;
    provider.release();

    const survivor = await runServer(env);
    servers.push(survivor);
    await waitUntilHealthy(survivor);
    await eventually(
      'the reindex to finish on the second process',
      async () => {
        const res = await call(survivor.base, 'GET', '/admin/embedding-config/reindex-status');
        const status = (await res.json()) as { state: string; done: number; total: number };
        return status.state === 'succeeded' ? status : undefined;
      },
      60_000,
    ).then((status) => expect(status).toMatchObject({ total: PRODUCTS, done: PRODUCTS }));

    const resent = provider.requests.slice(requestsBeforeCrash).flatMap((r) => r.texts);
    expect(resent).toHaveLength(PRODUCTS - ANSWERED_BEFORE_CRASH * BATCH);
    expect(resent.filter((text) => doneBeforeCrash.has(text))).toEqual([]);
    const { rows: after } = await db.query(
      `SELECT item_id, embedded_at FROM item_embeddings WHERE item_type = 'product' AND item_id = ANY($1::uuid[])`,
      [before.map((r) => r.item_id)],
    );
    expect(after.map((r) => [r.item_id, r.embedded_at.getTime()]).sort()).toEqual(
      before.map((r) => [r.item_id, r.embedded_at.getTime()]).sort(),
    );
    const config = (await (await call(survivor.base, 'GET', '/admin/embedding-config/')).json()) as {
      status: string;
    };
    expect(config.status).toBe('active');
  }, 120_000);
});
