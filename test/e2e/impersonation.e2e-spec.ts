import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser, uniqueEmail } from '../support/factories';
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';

/** Every limit on impersonation (docs/decisions.md#impersonation), each proven over HTTP. */
describe('impersonation limits', () => {
  let t: TestApp;
  let root: TestUser;
  let user: TestUser;
  let imp: { token: string };

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    user = await createUser(t.http);
    const res = await t.http.post(`${API}/admin/impersonate/${user.id}`).set(bearer(root));
    expect(res.status).toBe(200);
    imp = { token: res.body.access_token };
  });
  afterAll(() => t.close());

  it('issues a 15-minute access token for the user that carries act: {sub: <superadmin>}', () => {
    const claims = JSON.parse(Buffer.from(imp.token.split('.')[1], 'base64url').toString());
    expect(claims).toEqual(expect.objectContaining({ sub: user.id, typ: 'access', act: { sub: root.id } }));
    expect(claims.exp - claims.iat).toBe(15 * 60);
  });

  it('acts as the user for ordinary calls, never with superadmin power', async () => {
    const me = await t.http.get(`${API}/auth/me`).set(bearer(imp));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
    expectProblem(await t.http.get(`${API}/admin/audit-log`).set(bearer(imp)), 403);
  });

  it('answers 401 on /auth/refresh however the impersonation token is presented', async () => {
    // As the bearer credential, with no refresh token.
    const bare = await t.http.post(`${API}/auth/refresh`).set(bearer(imp)).send({});
    expectProblem(bare, 401);
    expect(bare.headers['www-authenticate']).toMatch(/^Bearer/);
    // As the refresh token itself (this used to fail validation with 422).
    expectProblem(await t.http.post(`${API}/auth/refresh`).send({ refresh_token: imp.token }), 401);
    // In the refresh cookie.
    expectProblem(await t.http.post(`${API}/auth/refresh`).set('Cookie', `verity_refresh=${imp.token}`), 401);
    // Together with a valid refresh token of the user: still refused, and the user's session is untouched.
    expectProblem(
      await t.http.post(`${API}/auth/refresh`).set(bearer(imp)).send({ refresh_token: user.refreshToken }),
      401,
    );
    const own = await t.http.post(`${API}/auth/refresh`).send({ refresh_token: user.refreshToken });
    expect(own.status).toBe(200);
  });

  it('answers 403 on API key management', async () => {
    expectProblem(await t.http.get(`${API}/api-keys/me/api-keys`).set(bearer(imp)), 403);
    expectProblem(await t.http.post(`${API}/api-keys/me/api-keys`).set(bearer(imp)).send({ name: 'k' }), 403);
  });

  it('answers 403 on password and credential changes and on DELETE /auth/me, which leave the account as it was', async () => {
    const change = await t.http
      .post(`${API}/auth/change-password`)
      .set(bearer(imp))
      .send({ current_password: user.password, new_password: 'another-password-1' });
    expectProblem(change, 403);
    expect(change.body.code).toBe('impersonation_forbidden');
    expectProblem(await t.http.delete(`${API}/auth/me`).set(bearer(imp)), 403);
    const account = await t.http.get(`${API}/users/${user.id}`).set(bearer(root));
    expect(account.body.is_active).toBe(true);
    await t.http
      .post(`${API}/auth/token`)
      .type('form')
      .send({ username: user.email, password: user.password })
      .expect(200);
  });

  it('answers 403 on impersonation itself', async () => {
    const other = await createUser(t.http);
    expectProblem(await t.http.post(`${API}/admin/impersonate/${other.id}`).set(bearer(imp)), 403);
  });

  it('refuses superadmins and inactive users as targets with 403', async () => {
    const admin = await t.http
      .post(`${API}/auth/register`)
      .set(bearer(root))
      .send({ email: uniqueEmail('sa'), password: 'password-123', is_superadmin: true });
    expectProblem(await t.http.post(`${API}/admin/impersonate/${admin.body.id}`).set(bearer(root)), 403);
    const inactive = await t.http
      .post(`${API}/auth/register`)
      .set(bearer(root))
      .send({ email: uniqueEmail('off'), password: 'password-123', is_active: false });
    expectProblem(await t.http.post(`${API}/admin/impersonate/${inactive.body.id}`).set(bearer(root)), 403);
  });

  it('writes every impersonation to the audit log with the superadmin as actor', async () => {
    const started = await dbQuery<{ actor_id: string; details: Record<string, unknown> }>(
      `SELECT actor_id, details FROM audit_log WHERE action = 'auth.impersonation_started' AND resource_id = $1`,
      [user.id],
    );
    expect(started).toEqual([
      expect.objectContaining({
        actor_id: root.id,
        details: expect.objectContaining({ impersonator_id: root.id, target_email: user.email }),
      }),
    ]);
  });
});
