import { startApp, TestApp } from '../support/app';
import { bearer, createUser, rootUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

describe('API conventions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { METRICS_TOKEN: '' } });
  });
  afterAll(() => t.close());

  describe('versioning', () => {
    it('redirects a legacy path with 308, keeping the query string, and marks it deprecated', async () => {
      const res = await t.http.get('/auth/me?x=1&y=a%20b');
      expect(res.status).toBe(308);
      expect(res.headers.location).toBe('/api/v1.0/auth/me?x=1&y=a%20b');
      expect(res.headers.deprecation).toBe('true');
    });

    it('redirects a legacy POST with 308 so the method and body are kept', async () => {
      const res = await t.http.post('/auth/register?dry=1').send({});
      expect(res.status).toBe(308);
      expect(res.headers.location).toBe('/api/v1.0/auth/register?dry=1');
    });

    it('does not redirect paths outside the API', async () => {
      const res = await t.http.get('/nope?x=1');
      expectProblem(res, 404);
    });
  });

  describe('problem details', () => {
    it('answers an unknown route with a 404 problem', async () => {
      const res = await t.http.get('/api/v1.0/no-such-thing');
      expectProblem(res, 404);
      expect(res.body.instance).toBe('/api/v1.0/no-such-thing');
    });

    it('answers a missing credential with 401 and WWW-Authenticate', async () => {
      const res = await t.http.get('/api/v1.0/auth/me');
      expectProblem(res, 401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('answers a garbage bearer token with 401', async () => {
      const res = await t.http.get('/api/v1.0/auth/me').set('Authorization', 'Bearer not-a-token');
      expectProblem(res, 401, /malformed, expired or revoked/);
    });

    it('answers malformed JSON with 400', async () => {
      const res = await t.http
        .post('/api/v1.0/auth/register')
        .set('Content-Type', 'application/json')
        .send('{"email": "a@b.c",');
      expectProblem(res, 400, /not valid JSON/);
    });

    it('rejects unknown body fields with 422 naming them', async () => {
      const res = await t.http
        .post('/api/v1.0/auth/register')
        .send({ email: 'x@example.test', password: 'long-enough-1', favourite_colour: 'blue' });
      expectProblem(res, 422);
      expect(res.body.errors).toEqual([
        { field: 'favourite_colour', message: 'favourite_colour is not a known field.' },
      ]);
    });

    it('answers wrong types with 422 and one error per field', async () => {
      const res = await t.http.post('/api/v1.0/auth/register').send({ email: 'nope', password: 5 });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(expect.arrayContaining(['email', 'password']));
    });

    it('answers a malformed UUID in a path with 422', async () => {
      const root = await rootUser(t.http);
      const res = await t.http.get('/api/v1.0/users/not-a-uuid').set(bearer(root));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['id']);
    });

    it('answers a malformed UUID in a query with 422', async () => {
      const root = await rootUser(t.http);
      const res = await t.http.get('/api/v1.0/users/search?space_id=zzz').set(bearer(root));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['space_id']);
    });

    it('answers an out-of-range query value with 422', async () => {
      const root = await rootUser(t.http);
      const res = await t.http.get('/api/v1.0/users?size=1000').set(bearer(root));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['size']);
    });
  });

  describe('request ids', () => {
    it('echoes a well-formed X-Request-Id', async () => {
      const res = await t.http.get('/api/v1.0/health').set('X-Request-Id', 'trace-abc.123');
      expect(res.headers['x-request-id']).toBe('trace-abc.123');
    });

    it('generates one when none (or a malformed one) is sent', async () => {
      const plain = await t.http.get('/api/v1.0/health');
      expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const bad = await t.http.get('/api/v1.0/health').set('X-Request-Id', 'bad id with spaces');
      expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('puts it on error responses too', async () => {
      const res = await t.http.get('/api/v1.0/auth/me').set('X-Request-Id', 'err-1');
      expect(res.headers['x-request-id']).toBe('err-1');
    });
  });

  describe('operations endpoints', () => {
    it('reports health once the database answers', async () => {
      const res = await t.http.get('/api/v1.0/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expect.objectContaining({ status: 'ok' }));
    });

    it('serves Prometheus metrics labelled by route template', async () => {
      const user = await createUser(t.http);
      await t.http.get(`/api/v1.0/users/${user.id}`).set(bearer(user));
      const res = await t.http.get('/api/v1.0/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toContain('http_request_duration_seconds_bucket');
      expect(res.text).toMatch(
        /http_requests_total\{method="GET",route="\/api\/v1\.0\/users\/:id",status="200"\} \d+/,
      );
      expect(res.text).toContain('process_cpu_user_seconds_total');
    });
  });
});

describe('metrics behind METRICS_TOKEN', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { METRICS_TOKEN: 'scrape-secret' } });
  });
  afterAll(() => t.close());

  it('needs the token', async () => {
    expectProblem(await t.http.get('/api/v1.0/metrics'), 401);
    expectProblem(await t.http.get('/api/v1.0/metrics').set('Authorization', 'Bearer wrong'), 401);
    const res = await t.http.get('/api/v1.0/metrics').set('Authorization', 'Bearer scrape-secret');
    expect(res.status).toBe(200);
  });
});
