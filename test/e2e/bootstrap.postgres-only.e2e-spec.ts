import { startApp, TestApp } from '../support/app';
import { cloneDatabase, dropDatabase, TEMPLATE_EMPTY } from '../support/database';
import { bearer, login, uniqueEmail } from '../support/factories';
import { expectProblem } from '../support/problem';

// Needs a database with no user at all, so it clones the empty template
// (PostgreSQL only: the embedded run has a single database).
describe('first superadmin bootstrap and closed registration', () => {
  const database = `${TEMPLATE_EMPTY}_bootstrap_${process.env.JEST_WORKER_ID ?? '1'}`;
  let t: TestApp;
  let superadminEmail = '';

  beforeAll(async () => {
    const url = await cloneDatabase(TEMPLATE_EMPTY, database);
    t = await startApp({ databaseUrl: url, env: { REGISTRATION_OPEN: 'false' } });
  });
  afterAll(async () => {
    await t.close();
    await dropDatabase(database);
  });

  it('lets the very first account register as a superadmin even when registration is closed', async () => {
    const [first, second] = await Promise.all(
      [1, 2].map((n) =>
        t.http
          .post('/api/v1.0/auth/register')
          .send({ email: uniqueEmail(`first${n}`), password: 'password-123', is_superadmin: true }),
      ),
    );
    // Registrations are serialised: exactly one of two simultaneous requests bootstraps.
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([201, 403]);
    const winner = first.status === 201 ? first : second;
    expect(winner.body.is_superadmin).toBe(true);
    superadminEmail = winner.body.email;
  });

  it('closes registration for everyone else, but a superadmin may still create accounts', async () => {
    expectProblem(
      await t.http.post('/api/v1.0/auth/register').send({ email: uniqueEmail(), password: 'password-123' }),
      403,
      /Registration is closed/,
    );
    const { token } = await login(t.http, superadminEmail, 'password-123');
    const created = await t.http
      .post('/api/v1.0/auth/register')
      .set(bearer({ token }))
      .send({ email: uniqueEmail('invited'), password: 'password-123' });
    expect(created.status).toBe(201);
    expect(created.body.is_superadmin).toBe(false);
  });

  it('never leaves the platform without an active superadmin (409)', async () => {
    const first = await login(t.http, superadminEmail, 'password-123');
    const me = await t.http.get('/api/v1.0/auth/me').set(bearer(first));
    expectProblem(
      await t.http.patch(`/api/v1.0/users/${me.body.id}`).set(bearer(first)).send({ is_superadmin: false }),
      409,
      /last active superadmin/,
    );
    expectProblem(
      await t.http.patch(`/api/v1.0/users/${me.body.id}`).set(bearer(first)).send({ is_active: false }),
      409,
    );
    const second = await t.http
      .post('/api/v1.0/auth/register')
      .set(bearer(first))
      .send({ email: uniqueEmail('second'), password: 'password-123', is_superadmin: true });
    const demoted = await t.http
      .patch(`/api/v1.0/users/${me.body.id}`)
      .set(bearer(first))
      .send({ is_superadmin: false });
    expect(demoted.status).toBe(200);
    expect(demoted.body.is_superadmin).toBe(false);
    const secondTokens = await login(t.http, second.body.email, 'password-123');
    expectProblem(
      await t.http
        .patch(`/api/v1.0/users/${second.body.id}`)
        .set(bearer(secondTokens))
        .send({ is_superadmin: false }),
      409,
    );
  });
});
