import { randomUUID } from 'node:crypto';
import { createServer, ServerResponse } from 'node:http';
import type { Response } from 'supertest';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  bearer,
  createSpace as createSpaceFor,
  createUser,
  TestUser,
  uniqueEmail,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const SPACES = '/api/v1.0/spaces';
const KEYS = '/api/v1.0/api-keys/me/api-keys';

describe('Idempotency-Key on POST', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    alice = await createUser(t.http);
    bob = await createUser(t.http);
  });
  afterAll(() => t.close());

  const newKey = () => `key-${randomUUID()}`;
  const spaceBody = (label = randomUUID().slice(0, 8)) => ({ name: `Idem ${label}`, slug: `idem-${label}` });
  const createSpace = (user: { token: string }, key: string, body: object) =>
    t.http.post(SPACES).set(bearer(user)).set('Idempotency-Key', key).send(body);
  const countSpaces = async (slug: string) =>
    (await dbQuery<{ n: number }>(`SELECT count(*)::int AS n FROM spaces WHERE slug = $1`, [slug]))[0].n;
  const keyRows = (key: string) =>
    dbQuery<{ status: string; response_status: number | null; response_sealed: string | null }>(
      `SELECT status, response_status, response_sealed FROM idempotency_keys WHERE key = $1`,
      [key],
    );

  function expectSameResponse(replay: Response, first: Response): void {
    expect(replay.status).toBe(first.status);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  }

  it('replays the first response to a retry with the same key and body, without running it again', async () => {
    const key = newKey();
    const body = spaceBody();
    const first = await createSpace(alice, key, body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // Field order does not matter: it is the same body.
    const retry = await createSpace(alice, key, { slug: body.slug, name: body.name });
    expectSameResponse(retry, first);
    expect(retry.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await countSpaces(body.slug)).toBe(1);
    const [row] = await keyRows(key);
    expect(row).toEqual(expect.objectContaining({ status: 'done', response_status: 201 }));
    // Kept sealed: the stored row does not show the response.
    expect(row.response_sealed).not.toContain(body.slug);
  });

  it('replays 4xx answers as well', async () => {
    const key = newKey();
    const first = await createSpace(alice, key, { name: '' });
    expectProblem(first, 422);
    const retry = await createSpace(alice, key, { name: '' });
    expectSameResponse(retry, first);
  });

  it('keeps a secret shown once sealed, and replays it to the retry that lost it', async () => {
    const key = newKey();
    const first = await t.http
      .post(KEYS)
      .set(bearer(alice))
      .set('Idempotency-Key', key)
      .send({ name: 'bot' });
    expect(first.status).toBe(201);
    const retry = await t.http
      .post(KEYS)
      .set(bearer(alice))
      .set('Idempotency-Key', key)
      .send({ name: 'bot' });
    expectSameResponse(retry, first);
    const created = await dbQuery(`SELECT id FROM api_keys WHERE user_id = $1 AND name = 'bot'`, [alice.id]);
    expect(created).toHaveLength(1);
    const [row] = await keyRows(key);
    expect(row.response_sealed).not.toContain(first.body.key);
  });

  it('answers 422 when the key is reused for another body or another route', async () => {
    const key = newKey();
    const body = spaceBody();
    expect((await createSpace(alice, key, body)).status).toBe(201);

    const otherBody = await createSpace(alice, key, spaceBody());
    expectProblem(otherBody, 422, /different request/);
    expect(otherBody.body.code).toBe('idempotency_key_reused');

    const otherRoute = await t.http
      .post(KEYS)
      .set(bearer(alice))
      .set('Idempotency-Key', key)
      .send({ name: 'x' });
    expectProblem(otherRoute, 422);
    expect(otherRoute.body.code).toBe('idempotency_key_reused');
    expect(
      await dbQuery(`SELECT 1 FROM api_keys WHERE user_id = $1 AND name = 'x'`, [alice.id]),
    ).toHaveLength(0);
  });

  it('runs two racing requests with one key once: the other answers 409 while the first runs', async () => {
    // Hold the first request inside its handler: sending a test event waits for this endpoint's answer.
    const arrived: ServerResponse[] = [];
    const endpoint = createServer((req, res) => {
      req.resume();
      arrived.push(res);
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const space = await createSpaceFor(t.http, alice);
      const hook = await t.http
        .post(`${SPACES}/${space.slug}/webhooks`)
        .set(bearer(alice))
        .send({
          url: `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/hook`,
          event_types: ['product.created'],
        });
      expect(hook.status).toBe(201);
      const key = newKey();
      const sendTest = () =>
        t.http
          .post(`${SPACES}/${space.slug}/webhooks/${hook.body.id}/test`)
          .set(bearer(alice))
          .set('Idempotency-Key', key);

      const firstRequest = sendTest().then((res) => res);
      const deadline = Date.now() + 10_000;
      while (!arrived.length) {
        if (Date.now() > deadline) throw new Error('the first request never reached the endpoint');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const racing = await sendTest();
      expectProblem(racing, 409, /still being processed/);
      expect(racing.body.code).toBe('idempotency_key_in_use');
      expect(racing.headers['retry-after']).toBe('1');

      arrived[0].writeHead(200).end();
      const first = await firstRequest;
      expect(first.status).toBe(200);
      expectSameResponse(await sendTest(), first);
      expect(arrived).toHaveLength(1);
      const sent = await dbQuery(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1`, [hook.body.id]);
      expect(sent).toHaveLength(1);
    } finally {
      endpoint.closeAllConnections();
      await new Promise((resolve) => endpoint.close(resolve));
    }
  });

  it('scopes keys to the caller: another user, or an API key, does not see them', async () => {
    const key = newKey();
    const mine = await createSpace(alice, key, spaceBody());
    expect(mine.status).toBe(201);

    const theirs = await createSpace(bob, key, spaceBody());
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);

    const apiKey = (await t.http.post(KEYS).set(bearer(alice)).send({ name: 'scoped' })).body as {
      key: string;
    };
    const viaKey = await createSpace({ token: apiKey.key }, key, spaceBody());
    expect(viaKey.status).toBe(201);
    expect(viaKey.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets keys after 24 hours: expired keys run as new, and the sweep job deletes them', async () => {
    const swept = newKey();
    const expired = newKey();
    expect((await createSpace(alice, swept, spaceBody())).status).toBe(201);
    expect((await createSpace(alice, expired, spaceBody())).status).toBe(201);
    await dbQuery(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'
        WHERE key = ANY($1)`,
      [[swept, expired]],
    );

    // Past its expiry a key is free even before the sweep: another body runs.
    const again = await createSpace(alice, expired, spaceBody());
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();

    const jobs = t.app.get(JobRunner);
    await jobs.enqueue(null, 'platform.idempotency-sweep', {});
    await jobs.drain();
    expect(await keyRows(swept)).toHaveLength(0);
    expect(await keyRows(expired)).toHaveLength(1);
  });

  it('does not keep a 5xx answer: the key is released for a retry', async () => {
    const key = newKey();
    const body = spaceBody();
    await dbQuery(
      `CREATE FUNCTION idem_fail() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.slug = '${body.slug}' THEN RAISE EXCEPTION 'simulated outage' USING ERRCODE = 'XX000'; END IF; RETURN NEW; END $$`,
    );
    await dbQuery(
      `CREATE TRIGGER idem_fail BEFORE INSERT ON spaces FOR EACH ROW EXECUTE FUNCTION idem_fail()`,
    );
    try {
      expectProblem(await createSpace(alice, key, body), 500);
      expect(await keyRows(key)).toHaveLength(0);
    } finally {
      await dbQuery('DROP TRIGGER idem_fail ON spaces');
      await dbQuery('DROP FUNCTION idem_fail()');
    }
    const retry = await createSpace(alice, key, body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countSpaces(body.slug)).toBe(1);
  });

  it('refuses a malformed key with 422', async () => {
    for (const bad of ['', 'x'.repeat(256), 'cl\u00e9']) {
      const res = await createSpace(alice, bad, spaceBody());
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['Idempotency-Key']);
    }
    // Checked on anonymous requests too.
    const anonymous = await t.http.post('/api/v1.0/auth/forgot-password').set('Idempotency-Key', '').send({
      email: uniqueEmail(),
    });
    expectProblem(anonymous, 422);
  });

  it('leaves anonymous requests and other methods alone', async () => {
    const key = newKey();
    const email = uniqueEmail();
    const register = () =>
      t.http
        .post('/api/v1.0/auth/register')
        .set('Idempotency-Key', key)
        .send({ email, password: 'correct-horse-1', first_name: 'A', last_name: 'B' });
    expect((await register()).status).toBe(201);
    const second = await register();
    expectProblem(second, 409);
    expect(second.headers['idempotent-replayed']).toBeUndefined();

    const get = await t.http.get('/api/v1.0/auth/me').set(bearer(alice)).set('Idempotency-Key', key);
    expect(get.status).toBe(200);
    expect(await keyRows(key)).toHaveLength(0);
  });
});
