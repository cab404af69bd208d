import { startApp, TestApp } from '../support/app';
import { createServer } from 'node:http';
import { checkedAgent, OpenApiContract } from '../support/openapi-contract';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }>; description?: string }>;
  'x-public'?: boolean;
  'x-ignores-caller'?: boolean;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

// SCIM routes speak RFC 7644: SCIM error bodies (application/scim+json) and SCIM tokens, not user credentials.
const isScim = (path: string) => path.startsWith('/api/v1.0/scim/');

describe('OpenAPI document', () => {
  let t: TestApp;
  let operations: Array<{ method: string; path: string; op: Operation }>;
  let document: {
    openapi: string;
    tags: { name: string; description?: string }[];
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

  it('declares every tag an operation uses, with a description, and no other', () => {
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    for (const { method, path, op } of operations) {
      expect({ route: `${method} ${path}`, tags: op.tags?.length ?? 0 }).toEqual({
        route: `${method} ${path}`,
        tags: 1,
      });
    }
    expect(document.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of document.tags) {
      expect({ tag: tag.name, description: tag.description }).toEqual({
        tag: tag.name,
        description: expect.stringMatching(/\S/),
      });
    }
  });

  it('describes every operation', () => {
    for (const { method, path, op } of operations) {
      expect({ route: `${method} ${path}`, description: op.description }).toEqual({
        route: `${method} ${path}`,
        description: expect.stringMatching(/\S/),
      });
    }
  });

  it('documents X-Instance-Id and its 403 wherever a caller is known', () => {
    for (const { method, path, op } of operations) {
      if (isScim(path) || op['x-ignores-caller']) continue;
      const route = `${method} ${path}`;
      const refs = (op.parameters ?? []).map((p) => p.$ref);
      expect({ route, header: refs.includes('#/components/parameters/InstanceId') }).toEqual({
        route,
        header: true,
      });
      expect({ route, has403: '403' in op.responses }).toEqual({ route, has403: true });
    }
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

  describe('the contract every e2e answer is held to (test/support/openapi-contract.ts)', () => {
    let contract: OpenApiContract;
    const space = {
      id: '00000000-0000-4000-8000-000000000001',
      name: 'Sales',
      slug: 'sales',
      description: null,
      features: {},
      role: null as unknown,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const answer = (status: number, body: unknown, contentType = 'application/json') => ({
      method: 'GET',
      url: '/api/v1.0/spaces/sales',
      status,
      headers: { 'content-type': `${contentType}; charset=utf-8` },
      text: JSON.stringify(body),
    });

    beforeAll(() => {
      contract = new OpenApiContract(document as ConstructorParameters<typeof OpenApiContract>[0]);
    });

    it('admits what the document says, null in a nullable reference included', () => {
      expect(contract.violations(answer(200, space))).toEqual([]);
      expect(contract.violations(answer(200, { ...space, role: 'viewer' }))).toEqual([]);
    });

    it('names the operation, status, JSON pointer and keyword of a violation', () => {
      expect(contract.violations(answer(200, { ...space, role: 'owner' }))).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^GET \/api\/v1\.0\/spaces\/\{slug\} answered 200: body \/role: enum /),
        ]),
      );
      expect(contract.violations(answer(200, { ...space, extra: 1 }))).toEqual([
        expect.stringMatching(/body \(root\): unevaluatedProperties .*unevaluatedProperty="extra"/),
      ]);
      expect(contract.violations(answer(418, {}))).toEqual([
        expect.stringMatching(
          /^GET \/api\/v1\.0\/spaces\/\{slug\} answered 418, which the operation does not document/,
        ),
      ]);
      expect(contract.violations(answer(200, space, 'text/csv'))).toEqual([
        expect.stringMatching(/content type text\/csv, where the document has application\/json/),
      ]);
    });

    it('fails the request that got an answer outside the contract, beside its own expectations', async () => {
      const tiny = {
        openapi: '3.0.3',
        paths: {
          '/api/v1.0/things/{id}': {
            get: {
              responses: {
                '200': {
                  description: 'A thing.',
                  content: {
                    'application/json': {
                      schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
                    },
                  },
                },
              },
            },
          },
        },
      };
      const server = createServer((req, res) => {
        const body = req.url === '/api/v1.0/openapi.json' ? tiny : { id: 'a', extra: 1 };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        const http = checkedAgent(server, origin);
        await expect(http.get('/api/v1.0/things/a').expect(200)).rejects.toThrow(
          /Outside the OpenAPI contract:\n {2}- GET \/api\/v1\.0\/things\/\{id\} answered 200: body \(root\): unevaluatedProperties .*"extra"/,
        );
        await expect(http.get('/api/v1.0/things/a').expect(201)).rejects.toThrow(
          /expected 201 "Created", got 200 "OK"[\s\S]*Outside the OpenAPI contract/,
        );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('lets an unknown route answer 404, and nothing else', () => {
      const unknown = { ...answer(404, {}, 'application/problem+json'), url: '/api/v1.0/nowhere' };
      expect(contract.violations(unknown)).toEqual([]);
      expect(contract.violations({ ...unknown, status: 200 })).toEqual([
        'GET /api/v1.0/nowhere answered 200, but no operation documents this route',
      ]);
    });
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
