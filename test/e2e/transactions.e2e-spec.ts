import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { uniqueEmail } from '../support/factories';
import { expectProblem } from '../support/problem';

// A registration writes the user and its domain event in one transaction. A
// trigger makes the event insert fail for one address: the user must not exist
// afterwards, and the client gets a generic 500 that names only the request id.
describe('transactions', () => {
  let t: TestApp;
  let db: DataSource;
  const doomed = uniqueEmail('doomed');

  beforeAll(async () => {
    t = await startApp();
    db = t.app.get(DataSource);
    await db.query(`
      CREATE OR REPLACE FUNCTION e2e_fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.payload->>'email' = '${doomed}' THEN RAISE EXCEPTION 'forced failure for the transaction test'; END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER e2e_fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION e2e_fail_outbox()`,
    );
  });
  afterAll(async () => {
    await db.query('DROP TRIGGER IF EXISTS e2e_fail_outbox ON outbox_events');
    await db.query('DROP FUNCTION IF EXISTS e2e_fail_outbox()');
    await t.close();
  });

  it('rolls back the whole use case when a later write fails, answering a generic 500', async () => {
    const res = await t.http
      .post('/api/v1.0/auth/register')
      .set('X-Request-Id', 'tx-test-1')
      .send({ email: doomed, password: 'password-123' });
    expectProblem(res, 500);
    expect(res.body.detail).toBe('An unexpected error occurred. Quote the request id when reporting it.');
    expect(res.body.request_id).toBe('tx-test-1');
    expect(JSON.stringify(res.body)).not.toContain('forced failure');
    const rows = await db.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [doomed]);
    expect(rows[0].n).toBe(0);
  });

  it('commits both writes when nothing fails', async () => {
    const email = uniqueEmail('fine');
    await t.http.post('/api/v1.0/auth/register').send({ email, password: 'password-123' }).expect(201);
    const events = await db.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE payload->>'email' = $1`,
      [email],
    );
    expect(events[0].n).toBe(1);
  });
});

describe('mail without SMTP_URL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('keeps the message in mail_outbox with a text and an HTML part', async () => {
    const email = uniqueEmail('nosmtp');
    await t.http.post('/api/v1.0/auth/register').send({ email, password: 'password-123' }).expect(201);
    await t.http.post('/api/v1.0/auth/forgot-password').send({ email }).expect(200);
    const db = t.app.get(DataSource);
    let rows: { status: string; text_body: string; html_body: string }[] = [];
    for (let attempt = 0; attempt < 50 && rows[0]?.status !== 'logged'; attempt++) {
      rows = await db.query('SELECT status, text_body, html_body FROM mail_outbox WHERE recipient = $1', [
        email,
      ]);
      if (rows[0]?.status !== 'logged') await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('logged');
    expect(rows[0].text_body).toMatch(/Reset token: \S+/);
    expect(rows[0].html_body).toMatch(/<a href="http:\/\/app\.verity\.test\/reset-password\?token=/);
  });
});
