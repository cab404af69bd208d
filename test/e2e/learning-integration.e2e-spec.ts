import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const ADMIN = `${API}/admin/integrations/learning`;
const HOOK = `${API}/integrations/learning/ai-literacy`;

describe('learning-system AI literacy webhook', () => {
  let t: TestApp;
  let root: TestUser;
  let learner: TestUser;
  let secret: string;

  beforeAll(async () => {
    t = await startApp();
    [root, learner] = await Promise.all([rootUser(t.http), createUser(t.http, { first_name: 'Lea' })]);
  });
  afterAll(() => t.close());

  /** Delivers a body signed with the official Standard Webhooks library, as a learning system would. */
  function deliver(
    payload: unknown,
    options: { id?: string; at?: Date; key?: string; signature?: string; raw?: string } = {},
  ) {
    const id = options.id ?? `msg_${randomUUID()}`;
    const at = options.at ?? new Date();
    const body = options.raw ?? JSON.stringify(payload);
    const signature = options.signature ?? new Webhook(options.key ?? secret).sign(id, at, body);
    return t.http
      .post(HOOK)
      .set('content-type', 'application/json')
      .set('webhook-id', id)
      .set('webhook-timestamp', String(Math.floor(at.getTime() / 1000)))
      .set('webhook-signature', signature)
      .send(body);
  }

  const completed = (data: Record<string, unknown>) => ({
    type: 'ai_literacy.completed',
    timestamp: new Date().toISOString(),
    data: {
      status: 'completed',
      program: 'AI Act basics',
      completion_date: '2026-11-20',
      next_renewal: '2027-11-20',
      ...data,
    },
  });

  it('keeps the settings routes for superadmins', async () => {
    expectProblem(await t.http.get(ADMIN).set(bearer(learner)), 403);
    expectProblem(await t.http.put(ADMIN).set(bearer(learner)).send({}), 403);
    expectProblem(await t.http.delete(ADMIN).set(bearer(learner)), 403);
  });

  it('answers 401 while no secret is configured', async () => {
    await t.http.delete(ADMIN).set(bearer(root)).expect(204);
    const res = await t.http.get(ADMIN).set(bearer(root));
    expect(res.body).toMatchObject({
      secret_set: false,
      is_enabled: false,
      timestamp_tolerance_seconds: 300,
    });
    expectProblem(
      await deliver(completed({ email: learner.email }), {
        key: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
      }),
      401,
    );
  });

  it('generates a secret once, then never returns it', async () => {
    const res = await t.http.put(ADMIN).set(bearer(root)).send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      secret_set: true,
      is_enabled: true,
      endpoint_url: 'http://app.verity.test/api/v1.0/integrations/learning/ai-literacy',
      timestamp_tolerance_seconds: 300,
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    secret = res.body.secret;
    const read = await t.http.get(ADMIN).set(bearer(root));
    expect(read.body.secret_set).toBe(true);
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(6));
    const kept = await t.http.put(ADMIN).set(bearer(root)).send({ is_enabled: true });
    expect(kept.body.secret).toBeNull();
    const [row] = await dbQuery<{ secret_sealed: string }>('SELECT secret_sealed FROM learning_integrations');
    expect(row.secret_sealed).not.toContain(secret.slice(6));
    const bad = await t.http.put(ADMIN).set(bearer(root)).send({ secret: 'plain', extra: true });
    expectProblem(bad, 422);
    expect(invalidFields(bad)).toEqual(['extra']);
    expectProblem(await t.http.put(ADMIN).set(bearer(root)).send({ secret: 'plain' }), 422, /whsec_/);
  });

  it('applies a well-signed delivery to the user, visible on GET /users/{id}, and audits it', async () => {
    const id = `msg_${randomUUID()}`;
    const res = await deliver(completed({ email: learner.email.toUpperCase() }), { id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'applied',
      message_id: id,
      user_id: learner.id,
      changed: [
        'ai_literacy_status',
        'ai_literacy_program',
        'ai_literacy_completion_date',
        'ai_literacy_next_renewal',
      ],
    });
    const user = await t.http.get(`${API}/users/${learner.id}`).set(bearer(learner));
    expect(user.body).toMatchObject({
      ai_literacy_status: 'completed',
      ai_literacy_program: 'AI Act basics',
      ai_literacy_completion_date: '2026-11-20',
      ai_literacy_next_renewal: '2027-11-20',
    });
    const audit = await dbQuery<{ details: { message_id: string; source: string } }>(
      `SELECT details FROM audit_log WHERE action = 'user.ai_literacy_updated' AND resource_id = $1`,
      [learner.id],
    );
    expect(audit.map((a) => a.details)).toEqual([
      expect.objectContaining({ message_id: id, source: 'learning_webhook' }),
    ]);
  });

  it('ignores a replayed message id: 200 duplicate, no second change', async () => {
    const id = `msg_${randomUUID()}`;
    const first = await deliver(
      { type: 'ai_literacy.updated', data: { user_id: learner.id, status: 'in_progress' } },
      { id },
    );
    expect(first.body.status).toBe('applied');
    const replay = await deliver(
      { type: 'ai_literacy.updated', data: { user_id: learner.id, status: 'expired' } },
      { id },
    );
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ status: 'duplicate', message_id: id, user_id: learner.id, changed: [] });
    const user = await t.http.get(`${API}/users/${learner.id}`).set(bearer(learner));
    expect(user.body.ai_literacy_status).toBe('in_progress');
  });

  it('refuses bad, missing and stale signatures with 401 and changes nothing', async () => {
    const payload = { type: 'ai_literacy.updated', data: { user_id: learner.id, status: 'expired' } };
    expectProblem(
      await deliver(payload, { key: `whsec_${Buffer.alloc(24, 9).toString('base64')}` }),
      401,
      /signature/,
    );
    expectProblem(await deliver(payload, { signature: 'v1,bm90IGEgc2lnbmF0dXJl' }), 401);
    expectProblem(await t.http.post(HOOK).send(payload), 401, /webhook-id/);
    const stale = await deliver(payload, { at: new Date(Date.now() - 6 * 60_000) });
    expectProblem(stale, 401, /300 seconds/);
    // A body altered after signing.
    const body = JSON.stringify(payload);
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const res = await t.http
      .post(HOOK)
      .set('content-type', 'application/json')
      .set('webhook-id', id)
      .set('webhook-timestamp', String(Math.floor(at.getTime() / 1000)))
      .set('webhook-signature', new Webhook(secret).sign(id, at, body))
      .send(body.replace('expired', 'completed'));
    expectProblem(res, 401);
    const user = await t.http.get(`${API}/users/${learner.id}`).set(bearer(learner));
    expect(user.body.ai_literacy_status).toBe('in_progress');
  });

  it('answers 422 for an unknown user or a bad payload, and records no message id', async () => {
    const id = `msg_${randomUUID()}`;
    const unknown = await deliver(completed({ email: 'nobody-here@example.test' }), { id });
    expectProblem(unknown, 422);
    expect(invalidFields(unknown)).toEqual(['data.email']);
    const bad = await deliver({
      type: 'ai_literacy.passed',
      data: { email: learner.email, status: 'done', extra: 1 },
    });
    expectProblem(bad, 422);
    expect(invalidFields(bad).sort()).toEqual(['data.extra', 'data.status', 'type']);
    expectProblem(
      await deliver({ type: 'ai_literacy.updated', data: { status: 'completed' } }),
      422,
      /exactly one/,
    );
    // The corrected retry under the same id applies.
    const retry = await deliver(completed({ email: learner.email }), { id });
    expect(retry.body.status).toBe('applied');
  });

  it('stops accepting deliveries once disabled, and a regenerated secret replaces the old one', async () => {
    await t.http.put(ADMIN).set(bearer(root)).send({ is_enabled: false }).expect(200);
    expectProblem(await deliver(completed({ email: learner.email })), 401, /disabled/);
    const res = await t.http.put(ADMIN).set(bearer(root)).send({ is_enabled: true, regenerate_secret: true });
    expect(res.body.secret).toMatch(/^whsec_/);
    expectProblem(await deliver(completed({ email: learner.email })), 401);
    secret = res.body.secret;
    expect((await deliver(completed({ email: learner.email }))).status).toBe(200);
  });
});
