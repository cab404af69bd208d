import { JwtService } from '@nestjs/jwt';
import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { startApp, TestApp } from '../support/app';
import { bearer, claimsOf, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

// Runs on the embedded database too: a deployment with only `default` (docs/decisions.md#instances).
const API = '/api/v1.0';
const ADMIN = `${API}/admin/instances`;

describe('Instances: the single-instance path', () => {
  let t: TestApp;
  let root: TestUser;
  let user: TestUser;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    user = await createUser(t.http);
  });
  afterAll(() => t.close());

  it('lists `default`, the deployment database, which always exists', async () => {
    const list = await t.http.get(ADMIN).set(bearer(root));
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toEqual({
      id: DEFAULT_INSTANCE_ID,
      slug: 'default',
      name: 'Default',
      status: 'active',
      database_url_set: false,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    const one = await t.http.get(`${ADMIN}/${DEFAULT_INSTANCE_ID}`).set(bearer(root));
    expect(one.body).toEqual(list.body.items[0]);
  });

  it('keeps the instance admin routes for superadmins', async () => {
    expectProblem(await t.http.get(ADMIN).set(bearer(user)), 403);
    expectProblem(await t.http.get(ADMIN), 401);
    expectProblem(await t.http.get(`${ADMIN}/not-a-uuid`).set(bearer(root)), 422);
    expectProblem(await t.http.get(`${ADMIN}/${crypto.randomUUID()}`).set(bearer(root)), 404);
  });

  it('never deletes `default`, keeps its slug and database, and keeps everyone in it', async () => {
    const deleted = await t.http.delete(`${ADMIN}/${DEFAULT_INSTANCE_ID}?force=true`).set(bearer(root));
    expectProblem(deleted, 409);
    expect(deleted.body.code).toBe('default_instance_immutable');
    expectProblem(
      await t.http.patch(`${ADMIN}/${DEFAULT_INSTANCE_ID}`).set(bearer(root)).send({ slug: 'main' }),
      409,
    );
    expectProblem(
      await t.http
        .patch(`${ADMIN}/${DEFAULT_INSTANCE_ID}`)
        .set(bearer(root))
        .send({ database_url: 'postgres://elsewhere/db' }),
      409,
    );
    const added = await t.http.put(`${ADMIN}/${DEFAULT_INSTANCE_ID}/members/${user.id}`).set(bearer(root));
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      instance_id: DEFAULT_INSTANCE_ID,
      user_id: user.id,
      created_at: expect.stringMatching(/Z$/),
    });
    expectProblem(
      await t.http.delete(`${ADMIN}/${DEFAULT_INSTANCE_ID}/members/${user.id}`).set(bearer(root)),
      409,
    );
  });

  it('validates instance input (slug shape, postgres URL, unknown fields)', async () => {
    const bad = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug: 'Bad Slug', name: 'x', database_url: 'mysql://x/y', extra: 1 });
    expectProblem(bad, 422);
    expect(invalidFields(bad).sort()).toEqual(['database_url', 'extra', 'slug']);
    const uuidSlug = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug: crypto.randomUUID(), name: 'x', database_url: 'postgres://127.0.0.1/x' });
    expectProblem(uuidSlug, 422);
    expect(invalidFields(uuidSlug)).toEqual(['slug']);
    const taken = await t.http
      .post(ADMIN)
      .set(bearer(root))
      .send({ slug: 'default', name: 'x', database_url: 'postgres://127.0.0.1/x' });
    expectProblem(taken, 409);
  });

  it('signs in to `default` by default, by slug or by id, with `ins` in the access token', async () => {
    expect(claimsOf(user.token).ins).toBe(DEFAULT_INSTANCE_ID);
    for (const instance of ['default', DEFAULT_INSTANCE_ID]) {
      const res = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: user.password, instance });
      expect(res.status).toBe(200);
      expect(claimsOf(res.body.access_token).ins).toBe(DEFAULT_INSTANCE_ID);
    }
    const unknown = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: user.email, password: user.password, instance: 'nowhere' });
    expectProblem(unknown, 404);
    // A wrong password says nothing about the instance.
    const wrong = await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: user.email, password: 'wrong-password', instance: 'nowhere' });
    expectProblem(wrong, 401);
  });

  it('lists my instances and switches to `default` without a password', async () => {
    const mine = await t.http.get(`${API}/auth/instances`).set(bearer(user));
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      items: [
        { id: DEFAULT_INSTANCE_ID, slug: 'default', name: 'Default', status: 'active', is_current: true },
      ],
      total: 1,
    });

    const switched = await t.http
      .post(`${API}/auth/switch-instance`)
      .set(bearer(user))
      .send({ instance: 'default' });
    expect(switched.status).toBe(200);
    expect(switched.headers['cache-control']).toMatch(/no-store/);
    expect(switched.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 1800,
      refresh_token: expect.stringMatching(/^vrt_/),
    });
    expect(claimsOf(switched.body.access_token).ins).toBe(DEFAULT_INSTANCE_ID);
    const me = await t.http.get(`${API}/auth/me`).set(bearer({ token: switched.body.access_token }));
    expect(me.status).toBe(200);
    // The previous session stays valid.
    expect((await t.http.get(`${API}/auth/me`).set(bearer(user))).status).toBe(200);

    const refreshed = await t.http
      .post(`${API}/auth/refresh`)
      .send({ refresh_token: switched.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access_token).ins).toBe(DEFAULT_INSTANCE_ID);

    expectProblem(
      await t.http.post(`${API}/auth/switch-instance`).set(bearer(user)).send({ instance: 'nowhere' }),
      404,
    );
    expectProblem(await t.http.post(`${API}/auth/switch-instance`).send({ instance: 'default' }), 401);
  });

  it('accepts an X-Instance-Id that names the credential instance and refuses any other with 403, known or not', async () => {
    const same = await t.http
      .get(`${API}/auth/me`)
      .set(bearer(user))
      .set('X-Instance-Id', DEFAULT_INSTANCE_ID);
    expect(same.status).toBe(200);
    // An unknown id answers exactly like another existing instance (see the PostgreSQL-only instance
    // suites), so the header cannot be used to learn which instance ids exist.
    for (const unknown of [crypto.randomUUID(), 'not-an-instance', '']) {
      const res = await t.http.get(`${API}/auth/me`).set(bearer(user)).set('X-Instance-Id', unknown);
      expectProblem(res, 403, 'X-Instance-Id does not name the instance of this credential.');
      expect(res.body.code).toBe('instance_mismatch');
      expect(res.body).not.toHaveProperty('resource');
    }
    // Without a credential the header decides nothing.
    const anonymous = await t.http.get(`${API}/health`).set('X-Instance-Id', crypto.randomUUID());
    expect(anonymous.status).toBe(200);
  });

  it('gives API keys the instance of the token that created them', async () => {
    const created = await t.http.post(`${API}/api-keys/me/api-keys`).set(bearer(user)).send({ name: 'ci' });
    expect(created.status).toBe(201);
    expect(created.body.instance_id).toBe(DEFAULT_INSTANCE_ID);
    const withKey = { Authorization: `Bearer ${created.body.key}` };
    expect((await t.http.get(`${API}/auth/me`).set(withKey)).status).toBe(200);
    expectProblem(
      await t.http.get(`${API}/auth/me`).set(withKey).set('X-Instance-Id', crypto.randomUUID()),
      403,
    );
    const switched = await t.http
      .post(`${API}/auth/switch-instance`)
      .set(withKey)
      .send({ instance: 'default' });
    expectProblem(switched, 403);
  });

  it('takes an access token without `ins` (issued before instances existed) as one for `default`', async () => {
    const { sub, sid } = claimsOf(user.token);
    const legacy = await t.app.get(JwtService).signAsync({ sub, sid, typ: 'access' }, { expiresIn: 60 });
    const me = await t.http.get(`${API}/auth/me`).set(bearer({ token: legacy }));
    expect(me.status).toBe(200);
    const forged = await t.app
      .get(JwtService)
      .signAsync({ sub, sid, typ: 'access', ins: crypto.randomUUID() }, { expiresIn: 60 });
    expectProblem(await t.http.get(`${API}/auth/me`).set(bearer({ token: forged })), 401);
  });
});
