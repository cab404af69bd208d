import { Webhook as StandardWebhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { MailerService } from '../../src/platform/mail/mailer.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const API = '/api/v1.0';

describe('webhooks', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let receiver: WebhookReceiver;
  let admin: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url, ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    admin = await createUser(t.http);
    space = await createSpace(t.http, admin);
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.close());
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const hooks = (s: TestSpace = space) => `${API}/spaces/${s.slug}/webhooks`;

  /** Runs the outbox and the job queue until everything due is done. */
  async function settle(): Promise<void> {
    await t.app.get(OutboxDispatcher).drain();
    await t.app.get(JobRunner).drain();
  }

  /** Makes every waiting retry due now instead of after its backoff. */
  async function retriesDueNow(): Promise<void> {
    await t.app
      .get(DataSource)
      .query(`UPDATE jobs SET run_at = now() WHERE name = 'webhooks.deliver' AND status = 'pending'`);
    await settle();
  }

  async function createHook(fields: Record<string, unknown> = {}, s: TestSpace = space) {
    const res = await t.http
      .post(hooks(s))
      .set(bearer(admin))
      .send({ url: receiver.url, event_types: ['product.created'], ...fields });
    if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; secret: string };
  }

  it('lists the event types a space can subscribe to, grouped by category', async () => {
    const res = await t.http.get(`${hooks()}/event-types`).set(bearer(admin));
    expect(res.status).toBe(200);
    const catalog = res.body.find((c: { category: string }) => c.category === 'catalog');
    expect(catalog.event_types).toEqual(
      expect.arrayContaining([{ name: 'product.created', description: expect.any(String) }]),
    );
    const names = res.body.flatMap((c: { event_types: { name: string }[] }) =>
      c.event_types.map((e) => e.name),
    );
    expect(names).not.toContain('user.registered');
    for (const name of names) expect(name).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });

  it('generates a secret shown once, stores it encrypted, and never returns it again', async () => {
    const created = await createHook();
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created).toEqual(
      expect.objectContaining({ secret_set: true, is_enabled: true, event_types: ['product.created'] }),
    );
    const list = await t.http.get(hooks()).set(bearer(admin));
    const listed = list.body.items.find((w: { id: string }) => w.id === created.id);
    expect(listed).not.toHaveProperty('secret');
    expect(listed.secret_set).toBe(true);
    const [row] = await t.app
      .get(DataSource)
      .query(`SELECT secret_sealed FROM webhooks WHERE id = $1`, [created.id]);
    expect(row.secret_sealed).not.toContain(created.secret.slice(6));
  });

  it('signs with a supplied secret but never returns it', async () => {
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const ownSpace = await createSpace(t.http, admin);
    const created = await createHook({ secret }, ownSpace);
    expect(created).not.toHaveProperty('secret');
    expect(created).toEqual(expect.objectContaining({ secret_set: true }));

    await createProduct(t.http, admin, ownSpace, { name: `Signed ${Date.now()}` });
    await settle();
    const [request] = await receiver.waitForCount(1);
    const verified = new StandardWebhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as { type: string };
    expect(verified.type).toBe('product.created');
  });

  it('rejects bad input with 422 naming the fields', async () => {
    const res = await t.http
      .post(hooks())
      .set(bearer(admin))
      .send({
        url: 'https://169.254.169.254/latest',
        event_types: ['product.exploded'],
        secret: 'plain-secret',
      });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual(['event_types', 'secret', 'url']);
    const empty = await t.http.post(hooks()).set(bearer(admin)).send({ url: receiver.url, event_types: [] });
    expectProblem(empty, 422);
  });

  it('delivers signed events that the official Standard Webhooks library verifies', async () => {
    const created = await createHook();
    const product = await createProduct(t.http, admin, space, { name: `Orders ${Date.now()}` });
    await settle();
    const [request] = await receiver.waitForCount(1);
    const verified = new StandardWebhook(created.secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as { type: string; timestamp: string; data: { product_id: string } };
    expect(verified.type).toBe('product.created');
    expect(verified.timestamp).toMatch(/Z$/);
    expect(verified.data.product_id).toBe(product.id);

    const log = await t.http.get(`${hooks()}/${created.id}/deliveries`).set(bearer(admin));
    expect(log.status).toBe(200);
    expect(log.body.total).toBe(1);
    expect(log.body.items[0]).toEqual(
      expect.objectContaining({
        delivery_id: request.headers['webhook-id'],
        event_type: 'product.created',
        attempt: 1,
        status: 'succeeded',
        response_code: 200,
        delivery_status: 'succeeded',
        duration_ms: expect.any(Number),
        error: null,
      }),
    );
  });

  it('sends nothing for events it did not subscribe to, or while disabled', async () => {
    const created = await createHook({ event_types: ['product.deleted'] });
    await createProduct(t.http, admin, space);
    await settle();
    expect(receiver.requests).toHaveLength(0);
    await t.http
      .patch(`${hooks()}/${created.id}`)
      .set(bearer(admin))
      .send({ event_types: ['product.created'], is_enabled: false })
      .expect(200);
    await createProduct(t.http, admin, space);
    await settle();
    expect(receiver.requests).toHaveLength(0);
  });

  it('retries a failed delivery with the same webhook-id and logs every attempt', async () => {
    const created = await createHook();
    receiver.respondWith(500, 503, 200);
    await createProduct(t.http, admin, space);
    await settle();
    await receiver.waitForCount(1);
    // The first retry waits about 5 seconds from the failed attempt (measured from the attempt, not from
    // now, so a loaded machine cannot eat the wait), far from the 5 minutes of the next step.
    const firstAttempt = await t.http
      .get(`${hooks()}/${created.id}/deliveries`)
      .set(bearer(admin))
      .expect(200);
    const [job] = await t.app.get(DataSource).query(
      // This delivery's retry: other deliveries of the space (of webhook.failing, say) may be waiting too.
      `SELECT EXTRACT(EPOCH FROM run_at - $1::timestamptz)::float AS wait FROM jobs
          WHERE name = 'webhooks.deliver' AND status = 'pending' AND payload->>'delivery_id' = $2`,
      [firstAttempt.body.items[0].finished_at, firstAttempt.body.items[0].delivery_id],
    );
    expect(job.wait).toBeGreaterThan(2);
    expect(job.wait).toBeLessThan(60);
    await retriesDueNow();
    await retriesDueNow();
    const requests = await receiver.waitForCount(3);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const log = await t.http.get(`${hooks()}/${created.id}/deliveries`).set(bearer(admin));
    expect(
      log.body.items.map((a: { attempt: number; response_code: number }) => [a.attempt, a.response_code]),
    ).toEqual([
      [3, 200],
      [2, 503],
      [1, 500],
    ]);
    expect(log.body.items[2].error).toMatch(/HTTP 500/);
  });

  it('disables an endpoint that answers 410 and tells its creator by email', async () => {
    const created = await createHook();
    receiver.respondWith(410);
    await createProduct(t.http, admin, space);
    await settle();
    await receiver.waitForCount(1);
    const list = await t.http.get(hooks()).set(bearer(admin));
    const hook = list.body.items.find((w: { id: string }) => w.id === created.id);
    expect(hook).toEqual(
      expect.objectContaining({ is_enabled: false, disabled_reason: 'The endpoint answered 410 Gone.' }),
    );
    await t.app.get(MailerService).flush();
    const mail = await smtp.waitFor(
      (m) => m.to.includes(admin.email) && /webhook was disabled/.test(m.subject),
    );
    expect(mail.text).toContain(receiver.url);
    // Enabling it again clears the disabled state.
    const enabled = await t.http
      .patch(`${hooks()}/${created.id}`)
      .set(bearer(admin))
      .send({ is_enabled: true });
    expect(enabled.body).toEqual(
      expect.objectContaining({ is_enabled: true, disabled_at: null, failing_since: null }),
    );
  });

  it('disables an endpoint that has kept failing for 24 hours', async () => {
    const created = await createHook();
    receiver.respondWith(500);
    await t.app
      .get(DataSource)
      .query(`UPDATE webhooks SET failing_since = now() - interval '25 hours' WHERE id = $1`, [created.id]);
    await createProduct(t.http, admin, space);
    await settle();
    await receiver.waitForCount(1);
    const list = await t.http.get(hooks()).set(bearer(admin));
    expect(list.body.items.find((w: { id: string }) => w.id === created.id)).toEqual(
      expect.objectContaining({
        is_enabled: false,
        disabled_reason: 'Deliveries to the endpoint have failed for 24 hours.',
      }),
    );
  });

  it('test sends a synthetic event and reports the status code and response time', async () => {
    const created = await createHook();
    receiver.respondWith(202);
    const res = await t.http.post(`${hooks()}/${created.id}/test`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      status_code: 202,
      response_time_ms: expect.any(Number),
      error: null,
      delivery_id: expect.any(String),
    });
    const [request] = receiver.requests;
    expect(JSON.parse(request.body).type).toBe('webhook.test');
    expect(request.headers['webhook-id']).toBe(res.body.delivery_id);
    receiver.respondWith(500);
    const failed = await t.http.post(`${hooks()}/${created.id}/test`).set(bearer(admin));
    expect(failed.body).toEqual(
      expect.objectContaining({ success: false, status_code: 500, error: expect.stringMatching(/500/) }),
    );
  });

  it('redelivers a logged delivery with the same webhook-id', async () => {
    const created = await createHook();
    await createProduct(t.http, admin, space);
    await settle();
    const [first] = await receiver.waitForCount(1);
    const again = await t.http
      .post(`${hooks()}/${created.id}/deliveries/${first.headers['webhook-id']}/redeliver`)
      .set(bearer(admin));
    expect(again.status).toBe(200);
    await settle();
    const [, second] = await receiver.waitForCount(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expectProblem(
      await t.http
        .post(`${hooks()}/${created.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`)
        .set(bearer(admin)),
      404,
    );
  });

  it('follows no redirect to a forbidden address', async () => {
    const created = await createHook();
    receiver.respondWith({ status: 307, location: 'http://169.254.169.254/latest/meta-data' });
    const res = await t.http.post(`${hooks()}/${created.id}/test`).set(bearer(admin));
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(/Refused .*169\.254\.169\.254.*linkLocal/);
  });

  it('updates and deletes (404 afterwards)', async () => {
    const created = await createHook();
    const res = await t.http
      .patch(`${hooks()}/${created.id}`)
      .set(bearer(admin))
      .send({ description: 'Data platform alerts', event_types: ['product.created', 'product.deleted'] });
    expect(res.body).toEqual(
      expect.objectContaining({
        description: 'Data platform alerts',
        event_types: ['product.created', 'product.deleted'],
      }),
    );
    await t.http.delete(`${hooks()}/${created.id}`).set(bearer(admin)).expect(204);
    expectProblem(await t.http.delete(`${hooks()}/${created.id}`).set(bearer(admin)), 404);
    expectProblem(
      await t.http.patch(`${hooks()}/${created.id}`).set(bearer(admin)).send({ description: 'x' }),
      404,
    );
  });

  it('lists the webhooks of a space as {items, total}, oldest first, with skip and limit', async () => {
    const own = await createSpace(t.http, admin);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createHook({ description: `hook ${i}` }, own)).id);
    const all = await t.http.get(hooks(own)).set(bearer(admin));
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.items.map((w: { id: string }) => w.id)).toEqual(ids);
    const page = await t.http.get(`${hooks(own)}?skip=1&limit=1`).set(bearer(admin));
    expect(page.body).toEqual({ items: [expect.objectContaining({ id: ids[1] })], total: 3 });
    expect(invalidFields(await t.http.get(`${hooks(own)}?limit=201`).set(bearer(admin)))).toEqual(['limit']);
  });

  it('is for space admins: editors get 403, non-members 404', async () => {
    const editor = await createUser(t.http);
    const stranger = await createUser(t.http);
    await addMember(t.http, admin, space, editor, 'editor');
    expectProblem(await t.http.get(hooks()).set(bearer(editor)), 403);
    expectProblem(
      await t.http
        .post(hooks())
        .set(bearer(editor))
        .send({ url: receiver.url, event_types: ['product.created'] }),
      403,
    );
    expect((await t.http.get(`${hooks()}/event-types`).set(bearer(editor))).status).toBe(200);
    expectProblem(await t.http.get(hooks()).set(bearer(stranger)), 404);
  });
});

describe('webhooks without ALLOW_PRIVATE_NETWORK_TARGETS', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('refuses plain http and loopback targets with 422', async () => {
    const admin = await createUser(t.http);
    const space = await createSpace(t.http, admin);
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://[::1]/x',
    ]) {
      const res = await t.http
        .post(`${API}/spaces/${space.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url, event_types: ['product.created'] });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['url']);
    }
  });
});
