import { startApp, TestApp } from '../support/app';

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }>; description?: string }>;
  'x-public'?: boolean;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

// SCIM routes speak RFC 7644: SCIM error bodies (application/scim+json) and SCIM tokens, not user credentials.
const isScim = (path: string) => path.startsWith('/api/v1.0/scim/');

describe('OpenAPI document', () => {
  let t: TestApp;
  let operations: Array<{ method: string; path: string; op: Operation }>;
  let document: {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: object };
  };

  beforeAll(async () => {
    t = await startApp();
    const res = await t.http.get('/api/v1.0/openapi.json');
    expect(res.status).toBe(200);
    document = res.body;
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
    );
  });
  afterAll(() => t.close());

  it('is an OpenAPI 3 document with every route under the version prefix', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(operations.length).toBeGreaterThan(20);
    for (const { path } of operations) expect(path).toMatch(/^\/api\/v1\.0\//);
  });

  it('gives every operation a unique operationId and a summary', () => {
    const ids = operations.map(({ op }) => op.operationId);
    for (const { method, path, op } of operations) {
      expect({ route: `${method} ${path}`, operationId: op.operationId }).toEqual({
        route: `${method} ${path}`,
        operationId: expect.stringMatching(/^[a-z][A-Za-z]+$/),
      });
      expect({ route: `${method} ${path}`, summary: op.summary }).toEqual({
        route: `${method} ${path}`,
        summary: expect.stringMatching(/\S/),
      });
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents a success response with a schema (or an empty 204) for every operation', () => {
    for (const { method, path, op } of operations) {
      const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect({ route: `${method} ${path}`, hasSuccess: success.length > 0 }).toEqual({
        route: `${method} ${path}`,
        hasSuccess: true,
      });
      for (const [status, response] of success) {
        if (status === '204') continue;
        const schemas = Object.values(response.content ?? {}).map((c) => c.schema);
        expect({
          route: `${method} ${path} ${status}`,
          hasSchema: schemas.length > 0 && schemas.every(Boolean),
        }).toEqual({
          route: `${method} ${path} ${status}`,
          hasSchema: true,
        });
      }
    }
  });

  it('documents error responses as problem details', () => {
    for (const { method, path, op } of operations) {
      const errors = Object.entries(op.responses).filter(([status]) => /^[45]\d\d$/.test(status));
      // A public route that raises no error of its own (GET /rate-limit) may list none.
      expect({ route: `${method} ${path}`, errors: errors.length > 0 || !!op['x-public'] }).toEqual({
        route: `${method} ${path}`,
        errors: true,
      });
      for (const [, response] of errors) {
        expect(Object.keys(response.content ?? {})).toEqual([
          isScim(path) ? 'application/scim+json' : 'application/problem+json',
        ]);
      }
    }
  });

  it('states the security of every operation, or marks it public', () => {
    for (const { method, path, op } of operations) {
      const route = `${method} ${path}`;
      if (op['x-public']) {
        expect({ route, security: op.security }).toEqual({ route, security: [] });
      } else {
        expect({ route, security: op.security }).toEqual({
          route,
          security: expect.arrayContaining([isScim(path) ? { scim: [] } : { bearer: [] }]),
        });
        expect({ route, has401: '401' in op.responses }).toEqual({ route, has401: true });
      }
    }
  });

  it('matches the reviewed snapshot of the contract', () => {
    expect(document).toMatchSnapshot();
  });

  it('serves Swagger UI with local assets only', async () => {
    const page = await t.http.get('/api/v1.0/docs/');
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/https?:\/\/(?!localhost)[^"']*\.(js|css)/);
    const bundle = page.text.match(/src="([^"]*swagger-ui-bundle\.js)"/)?.[1];
    expect(bundle).toBeDefined();
    const asset = await t.http.get(`/api/v1.0/docs/${bundle!.replace(/^\.\//, '')}`);
    expect(asset.status).toBe(200);
  });
});
