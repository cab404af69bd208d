import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { pinLimiterClock, QUIET_MINUTE } from '../support/limiter-clock';
import { expectProblem } from '../support/problem';

// The order of src/request-pipeline.ts, observed from outside: a stage that
// answers keeps every later one from running, and every earlier one has run.
const API = '/api/v1.0';
const ME = `${API}/auth/me`;
const ALLOWED = 'https://app.example.test';

function expectEarlyStages(res: Response): void {
  // request-id and security-headers come first, whatever answers.
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

function expectNotRateLimited(res: Response): void {
  expect(res.headers).not.toHaveProperty('x-ratelimit-limit');
}

describe('the request pipeline, in order', () => {
  let t: TestApp;
  let clock: ReturnType<typeof pinLimiterClock>;

  beforeAll(async () => {
    t = await startApp({ env: { CORS_ORIGINS: ALLOWED, RATE_LIMIT_ANON_TIER: 'standard' } });
    clock = pinLimiterClock(t, QUIET_MINUTE);
  });
  afterAll(async () => {
    clock.restore();
    await t.close();
  });

  it('answers a preflight at CORS, before the legacy-path redirect and the guards', async () => {
    const res = await t.http
      .options('/auth/me')
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expectEarlyStages(res);
    expectNotRateLimited(res);
  });

  it('redirects a legacy path before the body is read or any guard runs', async () => {
    const res = await t.http.get('/auth/me');
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe(ME);
    expectEarlyStages(res);
    expectNotRateLimited(res);
  });

  it('refuses text PostgreSQL cannot store in the body before authentication is demanded', async () => {
    const res = await t.http
      .post(`${API}/spaces`)
      .set('Content-Type', 'application/json')
      .send('{"name":"a\\u0000b"}');
    expectProblem(res, 422);
    expect((res.body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(['name']);
    expectEarlyStages(res);
    expectNotRateLimited(res);
  });

  it('rate-limits an anonymous caller before demanding authentication: 401 within the limit, 429 over it', async () => {
    // None of the requests above reached the rate limiter: this is the first one counted.
    const first = await t.http.get(ME);
    expectProblem(first, 401);
    expect(first.headers['x-ratelimit-remaining']).toBe('59');
    for (let i = 2; i <= 60; i++) expect((await t.http.get(ME)).status).toBe(401);

    const over = await t.http.get(ME);
    expectProblem(over, 429);
    expectEarlyStages(over);
  });
});
