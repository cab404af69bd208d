import { startApp, TestApp } from '../support/app';
import { bearer, createUser, rootUser, TestUser, uniqueEmail } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('users', () => {
  let t: TestApp;
  let root: TestUser;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
  });
  afterAll(() => t.close());

  describe('GET/PATCH /users/me', () => {
    it('reads my profile with spaces and last_login', async () => {
      const user = await createUser(t.http, { first_name: 'Alan', last_name: 'Turing' });
      const res = await t.http.get(`${API}/users/me`).set(bearer(user));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: user.id,
          email: user.email,
          first_name: 'Alan',
          last_name: 'Turing',
          avatar_url: null,
          spaces: [],
          created_at: expect.any(String),
          last_login: expect.stringMatching(/Z$/),
        }),
      );
    });

    it('changes names and avatar style, accepting email_avatar as gravatar', async () => {
      const user = await createUser(t.http);
      const res = await t.http.patch(`${API}/users/me`).set(bearer(user)).send({
        first_name: 'Barbara',
        last_name: 'Liskov',
        avatar_style: 'email_avatar',
        avatar_color: '#000000',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          first_name: 'Barbara',
          last_name: 'Liskov',
          avatar_style: 'gravatar',
          avatar_color: '#000000',
          avatar_url: expect.stringContaining('gravatar.com/avatar/'),
        }),
      );
    });

    it('rejects unknown fields and bad values with 422', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .patch(`${API}/users/me`)
        .set(bearer(user))
        .send({ avatar_style: 'cartoon', is_superadmin: true, first_name: '' });
      expectProblem(res, 422);
      expect(invalidFields(res).sort()).toEqual(['avatar_style', 'first_name', 'is_superadmin']);
    });
  });

  describe('GET /users (admin role)', () => {
    it('lists everyone for a superadmin, 1-based pages with search', async () => {
      const tag = uniqueEmail('findme').split('@')[0];
      await createUser(t.http, { email: `${tag}-a@example.test`, first_name: 'Findme' });
      await createUser(t.http, { email: `${tag}-b@example.test`, first_name: 'Findme' });
      const page1 = await t.http.get(`${API}/users?search=${tag}&page=1&size=1`).set(bearer(root));
      expect(page1.status).toBe(200);
      expect(page1.body).toEqual({ items: [expect.any(Object)], total: 2, page: 1, size: 1 });
      expect(page1.body.items[0]).toEqual({
        id: expect.any(String),
        email: `${tag}-a@example.test`,
        name: 'Findme User',
        is_active: true,
        spaces_count: 0,
        last_login: expect.any(String),
      });
      const page2 = await t.http.get(`${API}/users?search=${tag}&page=2&size=1`).set(bearer(root));
      expect(page2.body.items[0].email).toBe(`${tag}-b@example.test`);
    });

    it('treats LIKE wildcards in search literally', async () => {
      const res = await t.http.get(`${API}/users?search=%25`).set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
    });

    it('answers 403 to a user who administers no space', async () => {
      const user = await createUser(t.http);
      expectProblem(await t.http.get(`${API}/users`).set(bearer(user)), 403);
    });
  });

  describe('GET /users/{id}', () => {
    it('shows a user to themself and to a superadmin', async () => {
      const user = await createUser(t.http);
      for (const viewer of [user, root]) {
        const res = await t.http.get(`${API}/users/${user.id}`).set(bearer(viewer));
        expect(res.status).toBe(200);
        expect(res.body).toEqual(
          expect.objectContaining({ id: user.id, email: user.email, spaces: [], governance_roles: [] }),
        );
      }
    });

    it('answers 404 to a user who shares no space, as for a missing user', async () => {
      const user = await createUser(t.http);
      const stranger = await createUser(t.http);
      expectProblem(await t.http.get(`${API}/users/${user.id}`).set(bearer(stranger)), 404);
      expectProblem(
        await t.http.get(`${API}/users/00000000-0000-4000-8000-000000000000`).set(bearer(root)),
        404,
      );
    });
  });

  describe('PATCH /users/{id} (superadmin)', () => {
    it('updates names, status and the AI literacy fields', async () => {
      const user = await createUser(t.http);
      const res = await t.http.patch(`${API}/users/${user.id}`).set(bearer(root)).send({
        first_name: 'Katherine',
        ai_literacy_status: 'completed',
        ai_literacy_program: 'EU AI Act basics',
        ai_literacy_completion_date: '2026-03-01',
        ai_literacy_next_renewal: '2027-03-01',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          first_name: 'Katherine',
          ai_literacy_status: 'completed',
          ai_literacy_program: 'EU AI Act basics',
          ai_literacy_completion_date: '2026-03-01',
          ai_literacy_next_renewal: '2027-03-01',
        }),
      );
      const cleared = await t.http
        .patch(`${API}/users/${user.id}`)
        .set(bearer(root))
        .send({ ai_literacy_program: null, ai_literacy_next_renewal: null });
      expect(cleared.body).toEqual(
        expect.objectContaining({ ai_literacy_program: null, ai_literacy_next_renewal: null }),
      );
      expect(cleared.body.ai_literacy_completion_date).toBe('2026-03-01');
    });

    it('rejects bad literacy values with 422', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .patch(`${API}/users/${user.id}`)
        .set(bearer(root))
        .send({ ai_literacy_status: 'graduated', ai_literacy_completion_date: '2026-02-30' });
      expectProblem(res, 422);
      expect(invalidFields(res).sort()).toEqual(['ai_literacy_completion_date', 'ai_literacy_status']);
    });

    it('deactivating a user stops their tokens at once', async () => {
      const user = await createUser(t.http);
      await t.http.patch(`${API}/users/${user.id}`).set(bearer(root)).send({ is_active: false }).expect(200);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(user)), 401);
    });

    it('is for superadmins only (403)', async () => {
      const user = await createUser(t.http);
      expectProblem(
        await t.http.patch(`${API}/users/${user.id}`).set(bearer(user)).send({ first_name: 'Me' }),
        403,
      );
    });
  });

  describe('GET /users/search', () => {
    it('finds everyone for a superadmin, at most 10, by name or email', async () => {
      const tag = uniqueEmail('bulk').split('@')[0];
      for (let i = 0; i < 12; i++) await createUser(t.http, { email: `${tag}-${i}@example.test` });
      const res = await t.http.get(`${API}/users/search?q=${tag}`).set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(10);
      expect(res.body[0]).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        email: expect.stringContaining(tag),
        avatar_url: null,
      });
    });

    it('finds nobody else for a user who shares no space', async () => {
      const user = await createUser(t.http);
      const res = await t.http.get(`${API}/users/search?q=example.test`).set(bearer(user));
      expect(res.status).toBe(200);
      expect(res.body.every((u: { id: string }) => u.id === user.id)).toBe(true);
    });
  });
});

describe('preferences', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('answers every key with its default', async () => {
    const user = await createUser(t.http);
    const res = await t.http.get(`${API}/preferences`).set(bearer(user));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      notifications: {
        email_alerts: true,
        email_digest: 'immediate',
        slack_enabled: false,
        quality_alerts: true,
        access_requests: true,
        meeting_reminders: true,
        email_enabled: true,
      },
      ui: { theme: 'system', default_space: null, compact_mode: false, timezone: 'UTC' },
    });
  });

  it('changes only the keys given', async () => {
    const user = await createUser(t.http);
    await t.http
      .patch(`${API}/preferences`)
      .set(bearer(user))
      .send({ notifications: { email_digest: 'daily' } })
      .expect(200);
    const res = await t.http
      .patch(`${API}/preferences`)
      .set(bearer(user))
      .send({ ui: { timezone: 'Europe/Berlin', compact_mode: true } });
    expect(res.status).toBe(200);
    expect(res.body.notifications).toEqual(
      expect.objectContaining({ email_digest: 'daily', email_alerts: true }),
    );
    expect(res.body.ui).toEqual({
      theme: 'system',
      default_space: null,
      compact_mode: true,
      timezone: 'Europe/Berlin',
    });
    const read = await t.http.get(`${API}/preferences`).set(bearer(user));
    expect(read.body).toEqual(res.body);
  });

  it('validates each key and rejects unknown ones with 422', async () => {
    const user = await createUser(t.http);
    const res = await t.http
      .patch(`${API}/preferences`)
      .set(bearer(user))
      .send({
        notifications: { email_digest: 'monthly', email_alerts: 'yes', carrier_pigeon: true },
        ui: { timezone: 'Mars/Olympus_Mons' },
        extra: {},
      });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual([
      'extra',
      'notifications.carrier_pigeon',
      'notifications.email_alerts',
      'notifications.email_digest',
      'ui.timezone',
    ]);
    const read = await t.http.get(`${API}/preferences`).set(bearer(user));
    expect(read.body.notifications.email_digest).toBe('immediate');
  });

  it('needs authentication', async () => {
    expectProblem(await t.http.get(`${API}/preferences`), 401);
  });
});
