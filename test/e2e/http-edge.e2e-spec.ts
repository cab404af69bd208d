import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { pinLimiterClock, QUIET_MINUTE } from '../support/limiter-clock';
import { bearer, createUser, rootUser } from '../support/factories';
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';
const ME = `${API}/auth/me`;
const ALLOWED = 'https://app.example.test';
const OTHER_ALLOWED = 'http://localhost:5173';
const STRANGER = 'https://evil.example.test';
const API_CSP = "default-src 'none';frame-ancestors 'none'";

function corsHeaders(res: Response): string[] {
  return Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
}

function listOf(header: string | undefined): string[] {
  return (header ?? '').split(',').map((item) => item.trim().toLowerCase());
}

function expectSecurityHeaders(res: Response, csp = API_CSP): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['content-security-policy']).toBe(csp);
}

const remaining = (res: Response) => Number(res.headers['x-ratelimit-remaining']);

const preflight = (t: TestApp, path: string, origin: string, method = 'GET') =>
  t.http
    .options(path)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', method)
    .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key,x-request-id');

describe('browser clients on other origins (CORS_ORIGINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      env: { CORS_ORIGINS: `${ALLOWED}, ${OTHER_ALLOWED}`, RATE_LIMIT_ANON_TIER: 'standard' },
    });
  });
  afterAll(() => t.close());

  it('answers a preflight for any API route with the allowed methods, headers and credentials', async () => {
    for (const [path, method] of [
      [ME, 'GET'],
      [`${API}/catalog/spaces/some-space/products/0b7e9c3a-1111-4222-8333-444455556666`, 'DELETE'],
      [`${API}/spaces`, 'POST'],
      [`${API}/preferences`, 'PATCH'],
    ]) {
      const res = await preflight(t, path, ALLOWED, method);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(listOf(res.headers['access-control-allow-methods'])).toEqual(
        expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']),
      );
      expect(listOf(res.headers['access-control-allow-headers'])).toEqual(
        expect.arrayContaining([
          'authorization',
          'content-type',
          'idempotency-key',
          'x-instance-id',
          'x-request-id',
        ]),
      );
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
      expect(listOf(res.headers.vary)).toContain('origin');
    }
    const second = await preflight(t, ME, OTHER_ALLOWED);
    expect(second.headers['access-control-allow-origin']).toBe(OTHER_ALLOWED);
  });

  it('answers a preflight on a legacy path itself instead of redirecting it (browsers cannot follow that)', async () => {
    const res = await preflight(t, '/auth/me', ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers.location).toBeUndefined();
  });

  it('lets the allowed origin read the response and the headers a client needs', async () => {
    const user = await createUser(t.http);
    const res = await t.http.get(ME).set(bearer(user)).set('Origin', ALLOWED);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(listOf(res.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(
        [
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'RateLimit',
          'RateLimit-Policy',
          'Retry-After',
          'Location',
          'Deprecation',
        ].map((name) => name.toLowerCase()),
      ),
    );
    // A problem answer is readable too (the client must see why it failed).
    const problem = await t.http.get(ME).set('Origin', ALLOWED);
    expectProblem(problem, 401);
    expect(problem.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('gives another origin no CORS header at all', async () => {
    const user = await createUser(t.http);
    const res = await t.http.get(ME).set(bearer(user)).set('Origin', STRANGER);
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
    expect(listOf(res.headers.vary)).toContain('origin');
    const pre = await preflight(t, ME, STRANGER);
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre)).toEqual([]);
    // An origin differing only by scheme or port is another origin.
    const http = await preflight(t, ME, 'http://app.example.test');
    expect(corsHeaders(http)).toEqual([]);
  });

  it('does not count preflights against the rate limit', async () => {
    // Both reads in one window, even when the wall clock crosses a minute meanwhile.
    const clock = pinLimiterClock(t, QUIET_MINUTE);
    try {
      const before = remaining(await t.http.get(ME));
      for (let i = 0; i < 5; i++) expect((await preflight(t, ME, ALLOWED)).status).toBe(204);
      const after = remaining(await t.http.get(ME));
      expect(after).toBe(before - 1);
    } finally {
      clock.restore();
    }
  });
});

describe('without CORS_ORIGINS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('allows no cross-origin access', async () => {
    const res = await t.http.get(`${API}/health`).set('Origin', ALLOWED);
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
    const pre = await preflight(t, ME, ALLOWED);
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre)).toEqual([]);
  });

  it('sends the security headers on answers, problems and redirects, and HSTS only over HTTPS', async () => {
    const ok = await t.http.get(`${API}/health`);
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok);
    expect(ok.headers['strict-transport-security']).toBeUndefined();
    expect(ok.headers['x-powered-by']).toBeUndefined();

    expectProblem(await t.http.get(ME), 401);
    expectSecurityHeaders(await t.http.get(ME));
    const missing = await t.http.get(`${API}/nothing-here`);
    expectProblem(missing, 404);
    expectSecurityHeaders(missing);
    const outside = await t.http.get('/not-the-api');
    expectProblem(outside, 404);
    expectSecurityHeaders(outside);
    const badJson = await t.http
      .post(`${API}/auth/register`)
      .set('Content-Type', 'application/json')
      .send('{"email":');
    expectProblem(badJson, 400);
    expectSecurityHeaders(badJson);
    const legacy = await t.http.get('/health');
    expect(legacy.status).toBe(308);
    expectSecurityHeaders(legacy);

    // The request came over plain HTTP and no proxy is trusted: a forwarded scheme is ignored.
    const forwarded = await t.http.get(`${API}/health`).set('X-Forwarded-Proto', 'https');
    expect(forwarded.headers['strict-transport-security']).toBeUndefined();
  });

  it('gives the Swagger UI page a CSP that allows its own scripts and styles only', async () => {
    const page = await t.http.get(`${API}/docs`).redirects(1);
    expect(page.status).toBe(200);
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const document = await t.http.get(`${API}/openapi.json`);
    expectSecurityHeaders(document);
  });
});

describe('behind a load balancer (TRUST_PROXY)', () => {
  let trusting: TestApp;
  let direct: TestApp;
  beforeAll(async () => {
    // Passport keeps one strategy per name for the whole process: both apps must verify with the same key.
    const JWT_SECRET = 'trust-proxy-suite-secret-of-at-least-32-chars';
    trusting = await startApp({ env: { TRUST_PROXY: '1', RATE_LIMIT_ANON_TIER: 'standard', JWT_SECRET } });
    direct = await startApp({ env: { RATE_LIMIT_ANON_TIER: 'standard', JWT_SECRET } });
  });
  afterAll(async () => {
    await trusting.close();
    await direct.close();
  });

  const anonymousFrom = (t: TestApp, address: string) => t.http.get(ME).set('X-Forwarded-For', address);

  it('counts anonymous callers per forwarded client address only when the proxy is trusted', async () => {
    const clocks = [pinLimiterClock(trusting, QUIET_MINUTE), pinLimiterClock(direct, QUIET_MINUTE)];
    try {
      const a1 = await anonymousFrom(trusting, '203.0.113.7');
      const a2 = await anonymousFrom(trusting, '203.0.113.7');
      const b1 = await anonymousFrom(trusting, '198.51.100.9');
      expect(remaining(a2)).toBe(remaining(a1) - 1);
      expect(remaining(b1)).toBe(remaining(a1));

      const c1 = await anonymousFrom(direct, '203.0.113.7');
      const c2 = await anonymousFrom(direct, '198.51.100.9');
      expect(remaining(c2)).toBe(remaining(c1) - 1);
    } finally {
      for (const clock of clocks) clock.restore();
    }
  });

  it('makes the refresh cookie Secure and sends HSTS when a trusted proxy says the request came over HTTPS', async () => {
    const user = await createUser(trusting.http);
    const signIn = (t: TestApp, proto: string) =>
      t.http
        .post(`${API}/auth/token`)
        .type('form')
        .set('X-Forwarded-Proto', proto)
        .send({ username: user.email, password: user.password });
    const refreshCookie = (res: Response) =>
      (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('verity_refresh='));

    const https = await signIn(trusting, 'https');
    expect(https.status).toBe(200);
    expect(refreshCookie(https)).toMatch(/;\s*Secure/);
    expect(https.headers['strict-transport-security']).toMatch(/max-age=\d+/);

    const plain = await signIn(trusting, 'http');
    expect(refreshCookie(plain)).not.toMatch(/;\s*Secure/);
    expect(plain.headers['strict-transport-security']).toBeUndefined();

    const untrusted = await signIn(direct, 'https');
    expect(untrusted.status).toBe(200);
    expect(refreshCookie(untrusted)).not.toMatch(/;\s*Secure/);
    expect(untrusted.headers['strict-transport-security']).toBeUndefined();
  });

  it('records the forwarded client address in the audit log', async () => {
    const user = await createUser(trusting.http);
    const login = await trusting.http
      .post(`${API}/auth/token`)
      .type('form')
      .set('X-Forwarded-For', '192.0.2.44, 203.0.113.200')
      .send({ username: user.email, password: user.password });
    expect(login.status).toBe(200);
    const root = await rootUser(trusting.http);
    const entries = await trusting.http
      .get(`${API}/admin/audit-log?actor_id=${user.id}&action=auth.login&limit=1`)
      .set(bearer(root));
    expect(entries.status).toBe(200);
    // One trusted hop: the address the load balancer saw, not what the client claimed before it.
    expect(entries.body.items[0].ip).toBe('203.0.113.200');
  });
});
