import { startApp, TestApp } from '../support/app';

interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  'x-required-space-role'?: string;
  'x-required-role'?: string;
  'x-public'?: boolean;
}

/** The spaces, metadata configuration and catalog routes document themselves completely. */
describe('OpenAPI of the catalog core', () => {
  let t: TestApp;
  let operations: [string, string, Operation][];

  beforeAll(async () => {
    t = await startApp();
    const doc = (await t.http.get('/api/v1.0/openapi.json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    operations = Object.entries(doc.paths)
      .filter(([path]) => /^\/api\/v1\.0\/(spaces|catalog)\b/.test(path))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([m, op]) => [path, m, op] as [string, string, Operation]),
      );
  });
  afterAll(() => t.close());

  it('covers every route of the issue', () => {
    const ids = operations.map(([, , op]) => op.operationId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'createSpace',
        'listSpaces',
        'getSpace',
        'updateSpace',
        'deleteSpace',
        'updateSpaceFeatures',
        'listSpaceMembers',
        'addSpaceMember',
        'updateSpaceMember',
        'removeSpaceMember',
        'getSpaceConfig',
        'listCriticalityLevels',
        'seedSensitivityLevels',
        'deleteMaintenanceStatus',
        'createProduct',
        'listProducts',
        'getProduct',
        'updateProduct',
        'deleteProduct',
        'createLineageEdge',
        'deleteLineageEdge',
        'getProductLineage',
        'createAccessRequest',
        'listAccessRequests',
        'approveAccessRequest',
        'rejectAccessRequest',
      ]),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  // Routes that answer one of two documented bodies: web search answers its results (200) or,
  // before consent, the consent to decide (202).
  const TWO_SUCCESS_SHAPES = new Set(['POST /api/v1.0/spaces/{slug}/ai/authoring-tasks/{id}/web-search']);

  it('gives every operation a summary, a policy and a typed success response', () => {
    for (const [path, method, op] of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, summary: !!op.summary }).toEqual({ where, summary: true });
      const policy =
        op['x-required-space-role'] ??
        op['x-required-role'] ??
        (op.security?.length ? 'authenticated' : null) ??
        (op['x-public'] ? 'public' : null);
      expect({ where, policy: !!policy }).toEqual({ where, policy: true });
      const success = Object.keys(op.responses).filter((status) => /^2/.test(status));
      expect({ where, success: success.length }).toEqual({
        where,
        success: TWO_SUCCESS_SHAPES.has(where) ? 2 : 1,
      });
      for (const status of success.filter((s) => s !== '204')) {
        // A file download (a signed attachment link) answers bytes rather than JSON.
        const content = op.responses[status].content;
        const schema = content?.['application/json']?.schema ?? content?.['application/octet-stream']?.schema;
        expect({ where, status, schema: !!schema }).toEqual({ where, status, schema: true });
      }
      if (op['x-required-space-role']) {
        expect({ where, problems: ['401', '403', '404'].every((s) => s in op.responses) }).toEqual({
          where,
          problems: true,
        });
      }
    }
  });
});
