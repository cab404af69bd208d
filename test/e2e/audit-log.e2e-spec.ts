import { startApp, TestApp } from '../support/app';
import { bearer, createProduct, createSpace, createUser, rootUser } from '../support/factories';
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';

describe('GET /admin/audit-log', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('records sign-ins, failures, password changes and impersonation with actor, IP and credential', async () => {
    const root = await rootUser(t.http);
    const user = await createUser(t.http);
    await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: user.email, password: 'wrong-password' })
      .expect(401);
    await t.http
      .post(`${API}/auth/change-password`)
      .set(bearer(user))
      .send({ current_password: user.password, new_password: 'changed-pass-1' })
      .expect(200);
    await t.http.post(`${API}/admin/impersonate/${user.id}`).set(bearer(root)).expect(200);

    const mine = await t.http
      .get(`${API}/admin/audit-log?resource_type=user&resource_id=${user.id}&limit=200`)
      .set(bearer(root));
    expect(mine.status).toBe(200);
    const actions = mine.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'auth.login',
        'auth.login_failed',
        'auth.password_changed',
        'auth.impersonation_started',
      ]),
    );
    // Newest first.
    expect(actions[0]).toBe('auth.impersonation_started');
    const impersonation = mine.body.items[0];
    expect(impersonation).toEqual(
      expect.objectContaining({
        actor_id: root.id,
        resource_id: user.id,
        credential: expect.stringMatching(/^session:/),
        ip: expect.any(String),
        created_at: expect.stringMatching(/Z$/),
      }),
    );
    const changed = mine.body.items.find((e: { action: string }) => e.action === 'auth.password_changed');
    expect(changed.actor_id).toBe(user.id);
  });

  it('filters by actor, action prefix and time', async () => {
    const root = await rootUser(t.http);
    const user = await createUser(t.http);
    const byActor = await t.http.get(`${API}/admin/audit-log?actor_id=${user.id}`).set(bearer(root));
    expect(byActor.body.items.length).toBeGreaterThan(0);
    expect(byActor.body.items.every((e: { actor_id: string }) => e.actor_id === user.id)).toBe(true);
    const prefix = await t.http.get(`${API}/admin/audit-log?action=auth.*&limit=5`).set(bearer(root));
    expect(prefix.body.items.every((e: { action: string }) => e.action.startsWith('auth.'))).toBe(true);
    expect(prefix.body.total).toBeGreaterThanOrEqual(prefix.body.items.length);
    const future = await t.http.get(`${API}/admin/audit-log?since=2999-01-01T00:00:00Z`).set(bearer(root));
    expect(future.body).toEqual({ items: [], total: 0 });
    expectProblem(await t.http.get(`${API}/admin/audit-log?since=yesterday`).set(bearer(root)), 422);
  });

  it('records deletions in spaces: lineage edges and metadata values', async () => {
    const root = await rootUser(t.http);
    const admin = await createUser(t.http);
    const space = await createSpace(t.http, admin);
    const up = await createProduct(t.http, admin, space);
    const down = await createProduct(t.http, admin, space);
    const catalog = `${API}/catalog/spaces/${space.slug}`;
    await t.http
      .post(`${catalog}/lineage`)
      .set(bearer(admin))
      .send({ upstream_id: up.id, downstream_id: down.id })
      .expect(201);
    await t.http.delete(`${catalog}/lineage/${up.id}/${down.id}`).set(bearer(admin)).expect(204);
    const level = await t.http
      .post(`${API}/spaces/${space.slug}/config/criticality-levels`)
      .set(bearer(admin))
      .send({ name: 'Mission critical', color: '#FF0000' });
    await t.http
      .delete(`${API}/spaces/${space.slug}/config/criticality-levels/${level.body.id}`)
      .set(bearer(admin))
      .expect(204);

    const res = await t.http.get(`${API}/admin/audit-log?space_id=${space.id}&limit=200`).set(bearer(root));
    const actions = res.body.items.map((e: { action: string; actor_id: string }) => [e.action, e.actor_id]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['lineage.edge_deleted', admin.id],
        ['metadata_config.value_deleted', admin.id],
      ]),
    );
  });

  it('is for superadmins only', async () => {
    const user = await createUser(t.http);
    expectProblem(await t.http.get(`${API}/admin/audit-log`).set(bearer(user)), 403);
  });
});
