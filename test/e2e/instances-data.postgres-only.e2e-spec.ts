import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dropDatabase, freshDatabase, queryDb, withServer, workerDatabase } from '../support/database';
import { bearer, createProduct, createSpace, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';

// Spaces and everything in them live in the instance's own database (docs/decisions.md#instances).
const API = '/api/v1.0';
const ADMIN = `${API}/admin/instances`;
const worker = process.env.JEST_WORKER_ID ?? '1';
const dbName = (label: string) => `${workerDatabase(worker)}_data_${label}`;

/** Takes one database of the shared server down (and back) without touching the others. */
async function setDatabaseReachable(name: string, reachable: boolean): Promise<void> {
  await withServer(async (client) => {
    await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS ${reachable}`);
    if (!reachable) {
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      // Until the backends are gone, so the app's next query meets a stopped database.
      for (;;) {
        const { rows } = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
          [name],
        );
        if (rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
}

async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Instances: data routing', () => {
  // Kept across the restart below: the JWT secret and the key sealing database URLs live there.
  const dataDir = mkdtempSync(join(tmpdir(), 'verity-e2e-'));
  let t: TestApp;
  let root: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  const urls: Record<'north' | 'south', string> = { north: '', south: '' };
  const ids: Record<'north' | 'south', string> = { north: '', south: '' };
  // Tokens for the instance each user works on.
  let aliceNorth: { token: string };
  let bobSouth: { token: string };
  let rootNorth: { token: string };
  let lateId = '';

  async function switchTo(user: { token: string }, instance: string): Promise<{ token: string }> {
    const res = await t.http.post(`${API}/auth/switch-instance`).set(bearer(user)).send({ instance });
    if (res.status !== 200) throw new Error(`switch failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { token: res.body.access_token };
  }

  beforeAll(async () => {
    t = await startApp({ env: { DATA_DIR: dataDir } });
    root = await rootUser(t.http);
    alice = await createUser(t.http, { first_name: 'Alice' });
    bob = await createUser(t.http, { first_name: 'Bob' });
    for (const label of ['north', 'south'] as const) {
      urls[label] = await freshDatabase(dbName(label));
      const created = await t.http
        .post(ADMIN)
        .set(bearer(root))
        .send({ slug: `${label}-${worker}`, name: label, database_url: urls[label] });
      if (created.status !== 201)
        throw new Error(`instance: ${created.status} ${JSON.stringify(created.body)}`);
      ids[label] = created.body.id;
    }
    await t.http.put(`${ADMIN}/${ids.north}/members/${alice.id}`).set(bearer(root)).expect(200);
    await t.http.put(`${ADMIN}/${ids.south}/members/${bob.id}`).set(bearer(root)).expect(200);
    aliceNorth = await switchTo(alice, ids.north);
    bobSouth = await switchTo(bob, ids.south);
    rootNorth = await switchTo(root, ids.north);
  });
  afterAll(async () => {
    for (const id of [...Object.values(ids), lateId].filter(Boolean)) {
      await t.http.delete(`${ADMIN}/${id}?force=true`).set(bearer(root));
    }
    await t.close();
    for (const label of ['north', 'south', 'late']) {
      await setDatabaseReachable(dbName(label), true).catch(() => undefined);
      await dropDatabase(dbName(label));
    }
  });

  it('keeps each instance’s spaces and products in its own database, isolated both ways', async () => {
    const slug = `shared-${worker}`;
    const north = await createSpace(t.http, aliceNorth, { slug, name: 'North space' });
    const south = await createSpace(t.http, bobSouth, { slug, name: 'South space' });
    expect(north.id).not.toBe(south.id);
    const product = await createProduct(t.http, aliceNorth, north, { name: 'Orders (north)' });

    const [inNorth] = await queryDb<{ n: number }>(
      urls.north,
      'SELECT count(*)::int AS n FROM spaces WHERE slug = $1',
      [slug],
    );
    const [inSouth] = await queryDb<{ n: number }>(
      urls.south,
      'SELECT count(*)::int AS n FROM spaces WHERE slug = $1',
      [slug],
    );
    const [inDeployment] = await queryDb<{ n: number }>(
      workerDatabaseUrl(),
      'SELECT count(*)::int AS n FROM spaces WHERE slug = $1',
      [slug],
    );
    expect([inNorth.n, inSouth.n, inDeployment.n]).toEqual([1, 1, 0]);

    const seenNorth = await t.http.get(`${API}/spaces/${slug}`).set(bearer(aliceNorth));
    expect(seenNorth.status).toBe(200);
    expect(seenNorth.body.name).toBe('North space');
    const seenSouth = await t.http.get(`${API}/spaces/${slug}`).set(bearer(bobSouth));
    expect(seenSouth.body.name).toBe('South space');

    // The product exists in north only: read there, 404 from south and from `default`.
    const read = await t.http
      .get(`${API}/catalog/spaces/${slug}/products/${product.id}`)
      .set(bearer(aliceNorth));
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Orders (north)');
    expectProblem(
      await t.http.get(`${API}/catalog/spaces/${slug}/products/${product.id}`).set(bearer(bobSouth)),
      404,
    );
    // Root on `default` sees neither space; on north, north's.
    expectProblem(await t.http.get(`${API}/spaces/${slug}`).set(bearer(root)), 404);
    const rootView = await t.http.get(`${API}/spaces/${slug}`).set(bearer(rootNorth));
    expect(rootView.body.name).toBe('North space');
  });

  it('copies referenced accounts into the instance database, never their password hash', async () => {
    const [copy] = await queryDb<{ email: string; password_hash: string | null }>(
      urls.north,
      'SELECT email, password_hash FROM users WHERE id = $1',
      [alice.id],
    );
    expect(copy).toEqual({ email: alice.email, password_hash: null });
    const [absent] = await queryDb<{ n: number }>(
      urls.north,
      'SELECT count(*)::int AS n FROM users WHERE id = $1',
      [bob.id],
    );
    expect(absent.n).toBe(0);
  });

  it('routes API keys to their instance, and checks X-Instance-Id on instance work', async () => {
    const key = await t.http
      .post(`${API}/api-keys/me/api-keys`)
      .set(bearer(aliceNorth))
      .send({ name: 'north' });
    expect(key.status).toBe(201);
    const spaces = await t.http.get(`${API}/spaces`).set({ Authorization: `Bearer ${key.body.key}` });
    expect(spaces.status).toBe(200);
    expect(spaces.body.items.map((s: { name: string }) => s.name)).toEqual(['North space']);
    // A key of `default` stays on the deployment database, on its first use and once remembered.
    const defaultKey = await t.http
      .post(`${API}/api-keys/me/api-keys`)
      .set(bearer(alice))
      .send({ name: 'default' });
    expect(defaultKey.status).toBe(201);
    for (let use = 0; use < 2; use++) {
      const onDefault = await t.http
        .get(`${API}/spaces`)
        .set({ Authorization: `Bearer ${defaultKey.body.key}` });
      expect(onDefault.status).toBe(200);
      expect(onDefault.body.items.map((s: { name: string }) => s.name)).not.toContain('North space');
    }
    expectProblem(
      await t.http.get(`${API}/spaces`).set(bearer(aliceNorth)).set('X-Instance-Id', ids.south),
      403,
    );
    expect(
      (await t.http.get(`${API}/spaces`).set(bearer(aliceNorth)).set('X-Instance-Id', ids.north)).status,
    ).toBe(200);
  });

  it('runs background work per instance: the outbox of each instance is dispatched in its database', async () => {
    await t.app.get(OutboxDispatcher).drain();
    const pending = await queryDb<{ n: number }>(
      urls.north,
      'SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL',
    );
    const published = await queryDb<{ n: number }>(
      urls.north,
      `SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NOT NULL AND type = 'space.created'`,
    );
    expect(pending[0].n).toBe(0);
    expect(published[0].n).toBe(1);
  });

  it('finds by meaning within the caller’s instance only (each instance has its own vectors)', async () => {
    const northSpace = await createSpace(t.http, aliceNorth, {
      slug: `meaning-${worker}`,
      name: 'North meaning',
    });
    const southSpace = await createSpace(t.http, bobSouth, {
      slug: `meaning-${worker}`,
      name: 'South meaning',
    });
    const inNorth = await createProduct(t.http, aliceNorth, northSpace, { name: 'Glacier ice core samples' });
    const inSouth = await createProduct(t.http, bobSouth, southSpace, { name: 'Glacier ice core samples' });
    const semantic = (user: { token: string }) =>
      t.http
        .post(`${API}/search`)
        .set(bearer(user))
        .send({ query: 'glacier ice core samples', mode: 'semantic', limit: 5 });
    // The vectors are written by each instance's own background work.
    const found = async (user: { token: string }) =>
      ((await semantic(user)).body.items ?? []).map((item: { id: string }) => item.id) as string[];
    const north = await eventually(
      () => found(aliceNorth),
      (ids) => ids[0] === inNorth.id,
    );
    expect(north[0]).toBe(inNorth.id);
    expect(north).not.toContain(inSouth.id);
    const south = await eventually(
      () => found(bobSouth),
      (ids) => ids[0] === inSouth.id,
    );
    expect(south[0]).toBe(inSouth.id);
    expect(south).not.toContain(inNorth.id);
    expect(await found(root)).not.toEqual(expect.arrayContaining([inNorth.id]));
  });

  it('keeps each instance’s AI usage report to its own rollups', async () => {
    const rootSouth = await switchTo(root, ids.south);
    for (const label of ['north', 'south'] as const) {
      // Yesterday's rollups: the report keeps past days cached, so they must be cached per instance.
      await queryDb(
        urls[label],
        `INSERT INTO ai_usage_daily (day, feature, provider, model, calls)
         VALUES ((now() AT TIME ZONE 'UTC')::date - 1, 'usage-test', 'openai', $1, 2)`,
        [`${label}-model`],
      );
    }
    const models = async (user: { token: string }) => {
      const res = await t.http.get(`${API}/admin/ai-logs/usage?days=7`).set(bearer(user));
      expect(res.status).toBe(200);
      return res.body.items.map((item: { model: string }) => item.model) as string[];
    };
    expect(await models(rootNorth)).toEqual(['north-model']);
    expect(await models(rootSouth)).toEqual(['south-model']);
    expect(await models(root)).not.toEqual(expect.arrayContaining(['north-model']));
  });

  it('answers 503 with Retry-After for an instance whose database is down while the others keep serving', async () => {
    const slug = `shared-${worker}`;
    await setDatabaseReachable(dbName('south'), false);
    try {
      // First use after the stop is a space guard's query (GET /spaces/{slug}): never a 500 on the way to the 503.
      const seen: number[] = [];
      const down = await eventually(
        async () => {
          const res = await t.http.get(`${API}/spaces/${slug}`).set(bearer(bobSouth));
          seen.push(res.status);
          return res;
        },
        (res) => res.status !== 200,
      );
      expect(seen.filter((status) => status !== 200)).toEqual([503]);
      expectProblem(down, 503);
      expect(down.headers['retry-after']).toBe('5');
      expect(down.body.code).toBe('instance_database_unavailable');
      for (const path of [`/spaces`, `/spaces/${slug}`, `/catalog/spaces/${slug}/products`]) {
        const res = await t.http.get(`${API}${path}`).set(bearer(bobSouth));
        expectProblem(res, 503);
        expect(res.headers['retry-after']).toBe('5');
      }

      expect((await t.http.get(`${API}/spaces/${slug}`).set(bearer(aliceNorth))).status).toBe(200);
      expect(
        (await t.http.get(`${API}/catalog/spaces/${slug}/products`).set(bearer(aliceNorth))).status,
      ).toBe(200);
      expect((await t.http.get(`${API}/spaces`).set(bearer(root))).status).toBe(200);
      // The control plane does not depend on the instance database.
      expect((await t.http.get(`${API}/auth/me`).set(bearer(bobSouth))).status).toBe(200);
      const listed = await t.http.get(`${ADMIN}/${ids.south}`).set(bearer(root));
      expect(listed.body.status).toBe('unavailable');
    } finally {
      await setDatabaseReachable(dbName('south'), true);
    }
    const back = await eventually(
      () => t.http.get(`${API}/spaces`).set(bearer(bobSouth)),
      (res) => res.status === 200,
    );
    expect(back.status).toBe(200);
    expect((await t.http.get(`${ADMIN}/${ids.south}`).set(bearer(root))).body.status).toBe('active');
  });

  it('leaves `default` on the deployment database', async () => {
    const space = await createSpace(t.http, root);
    const [row] = await queryDb<{ n: number }>(
      workerDatabaseUrl(),
      'SELECT count(*)::int AS n FROM spaces WHERE id = $1',
      [space.id],
    );
    expect(row.n).toBe(1);
    const mine = await t.http.get(`${API}/auth/instances`).set(bearer(root));
    expect(mine.body.items[0].id).toBe(DEFAULT_INSTANCE_ID);
  });

  it('opens a new instance at once, and migrates one that was down at start when it is back', async () => {
    const lateDb = dbName('late');
    const lateUrl = await freshDatabase(lateDb);
    const created = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug: `late-${worker}`, name: 'late', database_url: lateUrl });
    expect(created.status).toBe(201);
    lateId = created.body.id;
    // Open from its creation: background work (the job schedules) reaches it before any request.
    await t.app.get(JobRunner).drain();
    const [scheduled] = await queryDb<{ n: number }>(lateUrl, 'SELECT count(*)::int AS n FROM job_schedules');
    expect(scheduled.n).toBeGreaterThan(0);
    const rootLate = await switchTo(root, lateId);
    const migrations = async (url: string) =>
      (await queryDb<{ n: number }>(url, 'SELECT count(*)::int AS n FROM schema_migrations'))[0].n;
    const expected = await migrations(workerDatabaseUrl());

    // Restart with its database empty and unreachable: nothing can migrate it at start.
    await t.close();
    await freshDatabase(lateDb);
    await setDatabaseReachable(lateDb, false);
    t = await startApp({ env: { DATA_DIR: dataDir } });
    expect((await t.http.get(`${ADMIN}/${lateId}`).set(bearer(root))).body.status).toBe('unavailable');
    expectProblem(await t.http.get(`${API}/spaces`).set(bearer(rootLate)), 503);

    await setDatabaseReachable(lateDb, true);
    // No request: background work opens the pool after its back-off, which migrates the database.
    const applied = await eventually(
      async () => {
        await t.app.get(OutboxDispatcher).drain();
        return migrations(lateUrl).catch(() => 0);
      },
      (n) => n === expected,
    );
    expect(applied).toBe(expected);
    const space = await createSpace(t.http, rootLate, { slug: `late-${worker}`, name: 'Late space' });
    const [stored] = await queryDb<{ n: number }>(
      lateUrl,
      'SELECT count(*)::int AS n FROM spaces WHERE id = $1',
      [space.id],
    );
    expect(stored.n).toBe(1);

    // After the restart no account copy is fresh: the instance guard's copy meets the stopped database.
    await setDatabaseReachable(dbName('south'), false);
    try {
      const res = await t.http.get(`${API}/spaces`).set(bearer(bobSouth));
      expectProblem(res, 503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.code).toBe('instance_database_unavailable');
    } finally {
      await setDatabaseReachable(dbName('south'), true);
    }
  });
});
