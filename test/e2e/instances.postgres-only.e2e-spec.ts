import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { startApp, TestApp } from '../support/app';
import { databaseUrl, dropDatabase, freshDatabase, queryDb, workerDatabase } from '../support/database';
import { bearer, claimsOf, createUser, login, rootUser, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';

// Instances with databases of their own on the local PostgreSQL (docs/decisions.md#instances).
const API = '/api/v1.0';
const ADMIN = `${API}/admin/instances`;
const worker = process.env.JEST_WORKER_ID ?? '1';
const instanceDb = (label: string) => `${workerDatabase(worker)}_ins_${label}`;

describe('Instances: control plane over several databases', () => {
  let t: TestApp;
  let root: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let emea: { id: string; slug: string };
  let emeaUrl: string;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    member = await createUser(t.http);
    outsider = await createUser(t.http);
    emeaUrl = await freshDatabase(instanceDb('emea'));
  });
  afterAll(async () => {
    await t.close();
    await dropDatabase(instanceDb('emea'));
    await dropDatabase(instanceDb('apac'));
  });

  it('creates an instance, migrating its empty database first, and never returns the URL', async () => {
    const slug = `emea-${worker}`;
    const created = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug, name: 'EMEA', database_url: emeaUrl });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      slug,
      name: 'EMEA',
      status: 'active',
      database_url_set: true,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(JSON.stringify(created.body)).not.toContain('postgres://');
    emea = created.body;
    const migrated = await queryDb<{ n: number }>(
      emeaUrl,
      'SELECT count(*)::int AS n FROM schema_migrations',
    );
    expect(migrated[0].n).toBeGreaterThan(10);
    const [stored] = await queryDb<{ database_url_sealed: string }>(
      databaseUrl(workerDatabase(worker)),
      'SELECT database_url_sealed FROM instances WHERE id = $1',
      [emea.id],
    );
    expect(stored.database_url_sealed).toMatch(/^v1\./);
    expect(stored.database_url_sealed).not.toContain('postgres');

    const list = await t.http.get(ADMIN).set(bearer(root));
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual(
      expect.arrayContaining([DEFAULT_INSTANCE_ID, emea.id]),
    );
    const renamed = await t.http.patch(`${ADMIN}/${emea.id}`).set(bearer(root)).send({ name: 'EMEA region' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('EMEA region');
    expectProblem(
      await t.http.post(ADMIN).set(bearer(root)).send({ slug, name: 'again', database_url: emeaUrl }),
      409,
    );
  });

  it('refuses (503) an instance whose database cannot be reached, storing nothing', async () => {
    const res = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug: `gone-${worker}`, name: 'Gone', database_url: databaseUrl(instanceDb('missing')) });
    expectProblem(res, 503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain('postgres://');
    const list = await t.http.get(`${ADMIN}?limit=200`).set(bearer(root));
    expect(list.body.items.map((i: { slug: string }) => i.slug)).not.toContain(`gone-${worker}`);
  });

  it('lets members and superadmins sign in to an instance, and refuses others (403)', async () => {
    const refused = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: member.email, password: member.password, instance: emea.slug });
    expectProblem(refused, 403);
    expect(refused.body.code).toBe('instance_membership_required');

    const added = await t.http.put(`${ADMIN}/${emea.id}/members/${member.id}`).set(bearer(root));
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ instance_id: emea.id, user_id: member.id, created_at: expect.any(String) });
    expect((await t.http.put(`${ADMIN}/${emea.id}/members/${member.id}`).set(bearer(root))).status).toBe(200);
    expectProblem(
      await t.http.put(`${ADMIN}/${emea.id}/members/${crypto.randomUUID()}`).set(bearer(root)),
      404,
    );

    const signedIn = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: member.email, password: member.password, instance: emea.slug });
    expect(signedIn.status).toBe(200);
    expect(claimsOf(signedIn.body.access_token).ins).toBe(emea.id);

    const rootThere = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: root.email, password: root.password, instance: emea.id });
    expect(rootThere.status).toBe(200);

    const mine = await t.http.get(`${API}/auth/instances`).set(bearer({ token: signedIn.body.access_token }));
    expect(mine.body.items.map((i: { slug: string; is_current: boolean }) => [i.slug, i.is_current])).toEqual(
      [
        ['default', false],
        [emea.slug, true],
      ],
    );
    const outsiders = await t.http.get(`${API}/auth/instances`).set(bearer(outsider));
    expect(outsiders.body.total).toBe(1);
  });

  it('switches instance without a password; refresh tokens keep their instance', async () => {
    const switched = await t.http
      .post(`${API}/auth/switch-instance`)
      .set(bearer(member))
      .send({ instance: emea.slug });
    expect(switched.status).toBe(200);
    expect(claimsOf(switched.body.access_token).ins).toBe(emea.id);
    const token = { token: switched.body.access_token };
    expect((await t.http.get(`${API}/auth/me`).set(bearer(token)).set('X-Instance-Id', emea.id)).status).toBe(
      200,
    );
    expectProblem(
      await t.http.get(`${API}/auth/me`).set(bearer(token)).set('X-Instance-Id', DEFAULT_INSTANCE_ID),
      403,
    );
    const refreshed = await t.http
      .post(`${API}/auth/refresh`)
      .send({ refresh_token: switched.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access_token).ins).toBe(emea.id);

    const back = await t.http
      .post(`${API}/auth/switch-instance`)
      .set(bearer(token))
      .send({ instance: 'default' });
    expect(back.status).toBe(200);
    expect(claimsOf(back.body.access_token).ins).toBe(DEFAULT_INSTANCE_ID);

    const refused = await t.http
      .post(`${API}/auth/switch-instance`)
      .set(bearer(outsider))
      .send({ instance: emea.id });
    expectProblem(refused, 403);
  });

  it('gives an API key the instance of its creating token; removing the member ends both at once', async () => {
    const { token, refreshToken } = await login(t.http, member.email, member.password);
    const switched = await t.http.post(`${API}/auth/switch-instance`).set(bearer({ token })).send({
      instance: emea.slug,
    });
    const onEmea = { token: switched.body.access_token };
    const key = await t.http.post(`${API}/api-keys/me/api-keys`).set(bearer(onEmea)).send({ name: 'emea' });
    expect(key.status).toBe(201);
    expect(key.body.instance_id).toBe(emea.id);
    const withKey = { Authorization: `Bearer ${key.body.key}` };
    expect((await t.http.get(`${API}/auth/me`).set(withKey).set('X-Instance-Id', emea.id)).status).toBe(200);

    expect((await t.http.delete(`${ADMIN}/${emea.id}/members/${member.id}`).set(bearer(root))).status).toBe(
      204,
    );
    expect((await t.http.delete(`${ADMIN}/${emea.id}/members/${member.id}`).set(bearer(root))).status).toBe(
      204,
    );
    expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(onEmea)), 401);
    expectProblem(await t.http.get(`${API}/auth/me`).set(withKey), 401);
    expectProblem(
      await t.http.post(`${API}/auth/refresh`).send({ refresh_token: switched.body.refresh_token }),
      401,
    );
    // Their `default` session is untouched.
    expect((await t.http.get(`${API}/auth/me`).set(bearer({ token }))).status).toBe(200);
    expect((await t.http.post(`${API}/auth/refresh`).send({ refresh_token: refreshToken })).status).toBe(200);
  });

  it('refuses to delete an instance whose database holds spaces unless forced', async () => {
    await queryDb(emeaUrl, `INSERT INTO spaces (name, slug) VALUES ('Left behind', 'left-behind')`);
    const refused = await t.http.delete(`${ADMIN}/${emea.id}`).set(bearer(root));
    expectProblem(refused, 409);
    expect(refused.body).toEqual(expect.objectContaining({ code: 'instance_not_empty', spaces: 1 }));

    const rootThere = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: root.email, password: root.password, instance: emea.id });
    const forced = await t.http.delete(`${ADMIN}/${emea.id}?force=true`).set(bearer(root));
    expect(forced.status).toBe(204);
    expectProblem(await t.http.get(`${ADMIN}/${emea.id}`).set(bearer(root)), 404);
    expectProblem(
      await t.http.get(`${API}/auth/me`).set(bearer({ token: rootThere.body.access_token })),
      401,
    );
    // The database itself is left as it was.
    const spaces = await queryDb<{ n: number }>(emeaUrl, 'SELECT count(*)::int AS n FROM spaces');
    expect(spaces[0].n).toBe(1);
  });

  // Last: a second app in this process takes over the passport strategies (and their JWT secret).
  it('starts, and answers 503 for it, when an instance URL cannot be unsealed (another ENCRYPTION_KEY)', async () => {
    const deployment = databaseUrl(workerDatabase(worker));
    const [row] = await queryDb<{ id: string }>(
      deployment,
      `INSERT INTO instances (slug, name, database_url_sealed) VALUES ($1, 'Foreign', 'v1.AAAA.BBBB.CCCC') RETURNING id`,
      [`foreign-${worker}`],
    );
    const other = await startApp();
    try {
      const signIn = await other.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: root.email, password: root.password, instance: row.id });
      expectProblem(signIn, 503);
      expect(signIn.headers['retry-after']).toBeDefined();
    } finally {
      await other.close();
      await queryDb(deployment, 'DELETE FROM instances WHERE id = $1', [row.id]);
    }
  });
});
