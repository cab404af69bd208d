import { RequestMethod } from '@nestjs/common';
import {
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_POLICY, AccessPolicy } from '../../src/common/auth/access-policy';
import { API_ROOTS } from '../../src/common/http/legacy-path.middleware';
import { IdempotencyGuard } from '../../src/platform/idempotency/idempotency.guard';
import { startApp, TestApp } from '../support/app';

interface Route {
  route: string;
  policy: AccessPolicy | undefined;
  interceptors: unknown[];
  /** The handler's own guards (after the controller's), in order. */
  guards: unknown[];
}

/** Every handler of every controller, with its declared access policy. */
function collectRoutes(t: TestApp): Route[] {
  const routes: Route[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!controller) continue;
      const base = [Reflect.getMetadata(PATH_METADATA, controller)].flat()[0] as string;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name as keyof object] as unknown;
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const path = [Reflect.getMetadata(PATH_METADATA, handler)].flat()[0] as string;
        const policy =
          (Reflect.getMetadata(ACCESS_POLICY, handler) as AccessPolicy | undefined) ??
          (Reflect.getMetadata(ACCESS_POLICY, controller) as AccessPolicy | undefined);
        const full = `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/');
        const interceptors = [
          ...((Reflect.getMetadata(INTERCEPTORS_METADATA, controller) ?? []) as unknown[]),
          ...((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[]),
        ];
        const guards = (Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[];
        routes.push({ route: `${RequestMethod[method]} ${full}`, policy, interceptors, guards });
      }
    }
  }
  return routes;
}

describe('route policies', () => {
  let t: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    t = await startApp();
    routes = collectRoutes(t);
  });
  afterAll(() => t.close());

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it('gives every route a declared access policy', () => {
    const missing = routes.filter((r) => !r.policy).map((r) => r.route);
    expect(missing).toEqual([]);
  });

  it("binds this application's idempotency guard last to every POST route, and no interceptor anywhere", () => {
    const idempotency = t.app.get(IdempotencyGuard);
    const unexpected = routes
      .filter((r) =>
        r.route.startsWith('POST ')
          ? r.guards.at(-1) !== idempotency ||
            r.guards.filter((g) => g instanceof IdempotencyGuard).length !== 1
          : r.guards.some((g) => g instanceof IdempotencyGuard),
      )
      .map((r) => r.route);
    expect(unexpected).toEqual([]);
    expect(routes.filter((r) => r.interceptors.length > 0).map((r) => r.route)).toEqual([]);
    expect(routes.filter((r) => r.route.startsWith('POST ')).length).toBeGreaterThan(50);
  });

  it('keeps every /admin route for superadmins', () => {
    const loose = routes
      .filter((r) => / \/admin\//.test(r.route) && r.policy?.kind !== 'superadmin')
      .map((r) => r.route);
    expect(loose).toEqual([]);
  });

  it('lists every route root for the legacy redirect', () => {
    const roots = new Set(routes.map((r) => r.route.split(' ')[1].split('/')[1]));
    expect([...roots].filter((root) => !API_ROOTS.has(root))).toEqual([]);
  });

  it('actually refuses an anonymous call to every non-public route (closed by default)', async () => {
    for (const { route, policy } of routes) {
      if (policy?.kind === 'public') continue;
      const [method, path] = route.split(' ');
      const concrete = path.replace(/:[^/]+/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.http[method.toLowerCase() as 'get'](`/api/v1.0${concrete}`);
      expect({ route, status: res.status }).toEqual({ route, status: 401 });
    }
  });
});
