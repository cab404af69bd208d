import { startApp, TestApp } from '../support/app';
import { bearer, createUser, TestUser } from '../support/factories';
import { recordStatements } from '../support/statement-log';

const API = '/api/v1.0';

// Issue 28: GET /auth/me and GET /preferences answer from the caller's own row, which the session
// check fetches along (@Authenticated({ withOwnUser: true })): one round trip with a JWT. An API key's
// check does not fetch it, so the same routes read the row themselves; both answers must be the same.
describe("the caller's own row fetched with the credential", () => {
  let t: TestApp;
  let me: TestUser;
  let apiKey: string;

  beforeAll(async () => {
    t = await startApp();
    me = await createUser(t.http);
    const key = await t.http.post(`${API}/api-keys/me/api-keys`).set(bearer(me)).send({ name: 'own-row' });
    expect(key.status).toBe(201);
    apiKey = (key.body as { key: string }).key;
    const patched = await t.http
      .patch(`${API}/preferences`)
      .set(bearer(me))
      .send({ ui: { theme: 'dark' } });
    expect(patched.status).toBe(200);
  });
  afterAll(() => t.close());

  async function statementsOf(path: string): Promise<{ body: unknown; statements: string[] }> {
    const log = recordStatements(t.app.getHttpServer());
    try {
      const res = await t.http.get(`${API}${path}`).set(bearer(me));
      expect(res.status).toBe(200);
      return { body: res.body as unknown, statements: log.statements.map((s) => s.text) };
    } finally {
      log.stop();
    }
  }

  it.each(['/auth/me', '/preferences'])(
    'answers %s with a JWT in one statement, as an API key does in two',
    async (path) => {
      const withJwt = await statementsOf(path);
      expect(withJwt.statements).toHaveLength(1);
      expect(withJwt.statements[0]).toMatch(/FROM sessions s JOIN users u/);

      const withKey = await t.http.get(`${API}${path}`).set({ Authorization: `Bearer ${apiKey}` });
      expect(withKey.status).toBe(200);
      expect(withKey.body).toEqual(withJwt.body);
    },
  );

  it('serves what the row holds now: a changed preference and name show at once', async () => {
    const theme = await t.http
      .patch(`${API}/preferences`)
      .set(bearer(me))
      .send({ ui: { theme: 'light' } });
    expect(theme.status).toBe(200);
    const renamed = await t.http
      .patch(`${API}/auth/me`)
      .set(bearer(me))
      .send({ full_name: 'Renamed Person' });
    expect(renamed.status).toBe(200);
    const preferences = await statementsOf('/preferences');
    expect((preferences.body as { ui: { theme: string } }).ui.theme).toBe('light');
    const own = await statementsOf('/auth/me');
    expect(own.body).toMatchObject({
      id: me.id,
      first_name: 'Renamed',
      last_name: 'Person',
      email: me.email,
    });
  });
});
