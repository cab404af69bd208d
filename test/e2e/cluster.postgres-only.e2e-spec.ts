import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { databaseUrl, dropDatabase, ROOT_EMAIL, ROOT_PASSWORD, withServer } from '../support/database';
import {
  buildIfNeeded,
  eventually,
  runServer,
  ServerProcess,
  waitUntilHealthy,
  rootJsonHeaders,
} from '../support/server-process';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

// WEB_CONCURRENCY workers of the built server on one fresh PostgreSQL database
// (PostgreSQL only: the embedded database serves one process).
const DB = `verity_cluster_${process.pid}`;

function workerPids(primary: ServerProcess): number[] {
  const found = spawnSync('pgrep', ['-P', String(primary.child.pid)], { encoding: 'utf8' });
  return found.stdout.split('\n').filter(Boolean).map(Number).sort();
}

/** `count` GETs spread over `connections` parallel loops (each its own keep-alive connection in undici's pool). */
async function hammer(url: string, count: number, connections: number): Promise<Response[]> {
  const answers: Response[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        next++;
        const res = await fetch(url);
        await res.arrayBuffer();
        answers.push(res);
      }
    }),
  );
  return answers;
}

const statusesOf = (answers: Response[]) => answers.map((res) => res.status);

describe('WEB_CONCURRENCY=2: a cluster of two workers', () => {
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let db: Client;
  let headers: Record<string, string>;

  beforeAll(async () => {
    buildIfNeeded();
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${DB}`);
    });
    receiver = await startWebhookReceiver();
    server = await runServer({
      DATABASE_URL: databaseUrl(DB),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-cluster-')),
      WEB_CONCURRENCY: '2',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      RATE_LIMIT_ANON_TIER: 'standard',
      RATE_LIMIT_USER_TIER: 'internal',
    });
    await waitUntilHealthy(server);
    db = new Client({ connectionString: databaseUrl(DB) });
    await db.connect();
    // The primary migrated an empty database; the suite needs a superadmin to act as.
    const register = await fetch(`${server.base}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ROOT_EMAIL, password: ROOT_PASSWORD, is_superadmin: true }),
    });
    expect(register.status).toBe(201);
    headers = await rootJsonHeaders(server.base);
  }, 120_000);

  afterAll(async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await db?.end();
    await receiver?.close();
    await dropDatabase(DB);
  });

  it('runs two worker processes under one primary that migrated the database once', async () => {
    await eventually('both workers to listen', async () => server.output().includes('with 2 workers'));
    expect(workerPids(server)).toHaveLength(2);
    expect(server.output()).toMatch(/Applied \d+ migrations/);
  });

  it('delivers every event exactly once across the workers (outbox, job runner)', async () => {
    const space = await fetch(`${server.base}/spaces`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Cluster space' }),
    }).then((r) => r.json() as Promise<{ slug: string }>);
    const hook = await fetch(`${server.base}/spaces/${space.slug}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, event_types: ['product.created'] }),
    });
    expect(hook.status).toBe(201);

    const PRODUCTS = 40;
    const created = await Promise.all(
      Array.from({ length: PRODUCTS }, (_, i) =>
        fetch(`${server.base}/catalog/spaces/${space.slug}/products`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `clustered-${i}`, product_type: 'dataset' }),
        }).then((r) => r.status),
      ),
    );
    expect(created).toEqual(Array(PRODUCTS).fill(201));

    // Once every delivery is recorded as sent, nothing more can be sent: count what arrived then.
    await eventually('every delivery recorded as succeeded', async () => {
      const [{ delivered }] = (
        await db.query(`SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE status = 'succeeded'`)
      ).rows;
      return delivered === PRODUCTS;
    });
    const ids = receiver.requests.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(PRODUCTS);
    expect(new Set(ids).size).toBe(PRODUCTS);
    const names = receiver.requests.map(
      (request) => (JSON.parse(request.body) as { data: { name: string } }).data.name,
    );
    expect(new Set(names).size).toBe(PRODUCTS);
  }, 90_000);

  it('runs a due cron occurrence once across the workers', async () => {
    const due = (
      await db.query(
        `UPDATE job_schedules SET next_run_at = date_trunc('minute', now()) - interval '1 hour'
          WHERE name = 'platform.retention' RETURNING next_run_at AS due`,
      )
    ).rows[0].due as Date;
    await eventually('the cron occurrence to run', async () => {
      const { rows } = await db.query(`SELECT status FROM jobs WHERE singleton_key = $1`, [
        `cron:platform.retention:${due.toISOString()}`,
      ]);
      return rows.length === 1 && rows[0].status === 'done';
    });
    const { rows } = await db.query(`SELECT count(*)::int AS runs FROM jobs WHERE singleton_key LIKE $1`, [
      `cron:platform.retention:${due.toISOString()}%`,
    ]);
    expect(rows[0].runs).toBe(1);
  });

  it('answers a scrape with the metrics of every worker', async () => {
    const answers = await hammer(`${server.base}/rate-limit`, 30, 6);
    expect(statusesOf(answers)).toEqual(Array(30).fill(200));
    const metrics = await fetch(`${server.base}/metrics`).then((r) => r.text());
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/v1.0/rate-limit"'));
    expect(line).toMatch(/ 30$/);
  });

  it('keeps one rate-limit budget for all workers', async () => {
    // Anonymous callers of the standard tier get 60 requests a minute, whichever worker answers them.
    // Per-process counters would let each worker count its own 60, repeating `remaining` values.
    const answers = await hammer(`${server.base}/auth/me`, 90, 8);
    const windows = new Map<string, Response[]>();
    for (const res of answers) {
      const reset = res.headers.get('x-ratelimit-reset')!;
      windows.set(reset, [...(windows.get(reset) ?? []), res]);
    }
    for (const inWindow of windows.values()) {
      const allowed = inWindow.filter((res) => res.status === 401);
      expect(allowed.length).toBeLessThanOrEqual(60);
      const remaining = allowed.map((res) => res.headers.get('x-ratelimit-remaining'));
      expect(new Set(remaining).size).toBe(remaining.length);
    }
    // 90 requests cannot all fit one minute's 60, even across a window boundary.
    expect(statusesOf(answers)).toContain(429);
  });

  it('replaces a worker that dies, and stops every worker on SIGTERM', async () => {
    const [victim, survivor] = workerPids(server);
    process.kill(victim, 'SIGKILL');
    const replaced = await eventually('a replacement worker', async () => {
      const pids = workerPids(server);
      return pids.length === 2 && !pids.includes(victim) ? pids : undefined;
    });
    expect(replaced).toContain(survivor);
    await eventually('the replacement to serve', async () => {
      const answers = await hammer(`${server.base}/health`, 20, 4);
      return statusesOf(answers).every((status) => status === 200);
    });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('Stopped');
    for (const pid of replaced) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
