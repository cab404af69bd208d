import type { Express } from 'express';
import { startApp, TestApp } from '../support/app';
import { bearer, createUser, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';

// Routes are kept per API root (src/common/http/routes-by-root.adapter.ts): matching as Express's one list did.
const API = '/api/v1.0';

describe('routing by API root', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startApp();
    user = await createUser(t.http);
  });
  afterAll(() => t.close());

  it('leaves only a few routes in the main Express list, the API roots going through one dispatch layer', () => {
    const express = t.app.getHttpAdapter().getInstance() as Express;
    const stack = (express as unknown as { router: { stack: { route?: { path: string } }[] } }).router.stack;
    const listed = stack.filter((layer) => layer.route).map((layer) => layer.route?.path);
    expect(listed.filter((path) => path?.startsWith(`${API}/auth/`))).toEqual([]);
    expect(listed.length).toBeLessThan(10);
  });

  it('matches a root and a path case-insensitively, with or without a trailing slash, as Express does', async () => {
    // fetch, not t.http: these spellings are outside the OpenAPI contract t.http checks answers against.
    for (const path of [`${API}/auth/me`, `${API}/AUTH/me`, `${API}/Auth/ME`, `${API}/auth/me/`]) {
      const res = await fetch(`${t.baseUrl}${path}`, { headers: bearer(user) });
      const body = (await res.json()) as { email?: string };
      expect([path, res.status, body.email]).toEqual([path, 200, user.email]);
    }
  });

  it('answers 404 problems for an unknown root, an unknown path under a known root, and a bare prefix', async () => {
    for (const path of [`${API}/no-such-root`, `${API}/auth/no-such-route`, `${API}/`]) {
      expectProblem(await t.http.get(path).set(bearer(user)), 404);
    }
  });

  it('answers other methods on a known path as before: 404, and no Allow-listing OPTIONS answer', async () => {
    expectProblem(await t.http.put(`${API}/auth/me`).set(bearer(user)).send({}), 404);
    expectProblem(await t.http.options(`${API}/auth/me`), 404);
  });

  it('serves HEAD from the GET route of a root', async () => {
    const res = await t.http.head(`${API}/auth/me`).set(bearer(user));
    expect(res.status).toBe(200);
  });
});
