import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Parameter {
  name: string;
  in: string;
  schema?: { format?: string };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, { type?: string }> }> };
}

describe('input PostgreSQL cannot store, and ids made by other systems', () => {
  let t: TestApp;
  let user: TestUser;
  let root: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp();
    [user, root] = await Promise.all([createUser(t.http), rootUser(t.http)]);
    space = await createSpace(t.http, user);
  });
  afterAll(() => t.close());

  const products = (s: TestSpace = space) => `${API}/catalog/spaces/${s.slug}/products`;

  describe('identifiers are read as PostgreSQL reads a UUID', () => {
    // Nil-like, max, and version 0 / variant 0: none passes an RFC 4122 version check.
    const foreignIds = [
      '00000000-0000-0000-0000-000000000001',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '12345678-9abc-0def-0123-456789abcdef',
    ];

    beforeAll(async () => {
      for (const [i, id] of foreignIds.entries()) {
        await dbQuery(`INSERT INTO products (id, space_id, name) VALUES ($1, $2, $3)`, [
          id,
          space.id,
          `Bulk loaded ${i}`,
        ]);
      }
    });

    it('reaches rows whose ids carry no RFC version or variant, in any case', async () => {
      for (const id of foreignIds) {
        for (const asSent of [id, id.toUpperCase()]) {
          const res = await t.http.get(`${products()}/${asSent}`).set(bearer(user));
          expect(res.status).toBe(200);
          expect(res.body.id).toBe(id);
        }
        const patched = await t.http
          .patch(`${products()}/${id}`)
          .set(bearer(user))
          .send({ description: 'Loaded from the old catalog.' });
        expect(patched.status).toBe(200);
        const attachments = await t.http.get(`${products()}/${id}/attachments`).set(bearer(user));
        expect(attachments.status).toBe(200);
      }
      const filtered = await t.http
        .get(`${API}/spaces/${space.slug}/quality/checks`)
        .query({ product_id: foreignIds[0] })
        .set(bearer(user));
      expect(filtered.status).toBe(200);
      expect(filtered.body).toEqual({ items: [], total: 0 });
    });

    it('still answers 422 for what PostgreSQL would not read as a UUID', async () => {
      for (const bad of [
        'nope',
        '0000000-0000-0000-0000-000000000001',
        'g0000000-0000-0000-0000-000000000001',
        'ffffffff-ffff-ffff-ffff-ffffffffffff0',
        '00000000000000000000000000000001',
      ]) {
        const res = await t.http.get(`${products()}/${bad}`).set(bearer(user));
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual(['product_id']);
      }
      const query = await t.http
        .get(`${API}/spaces/${space.slug}/quality/checks`)
        .query({ product_id: 'ffffffff-ffff' })
        .set(bearer(user));
      expectProblem(query, 422);
      expect(invalidFields(query)).toEqual(['product_id']);
    });
  });

  describe('NUL characters and unpaired surrogates', () => {
    it('answers 404 for a path segment holding one, before any route or query runs', async () => {
      const product = await createProduct(t.http, user, space);
      const res = await t.http
        .get(`${API}/catalog/spaces/a%00b/products/${product.id}/attachments`)
        .set(bearer(user));
      expectProblem(res, 404);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}%00`).set(bearer(user)), 404);
      expectProblem(await t.http.get('/a%00b'), 404);
    });

    it('answers 400 for a path that is not valid percent-encoded UTF-8', async () => {
      for (const path of [`${API}/spaces/%E0%A4%A`, `${API}/spaces/%FF`, `${API}/spaces/%ED%A0%80`, '/%']) {
        expectProblem(await t.http.get(path).set(bearer(user)), 400, /percent-encoded/);
      }
    });

    it('refuses a form field holding one with 422 naming it', async () => {
      const res = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send('username=a%00b&password=whatever');
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['username']);
    });

    it('refuses a query parameter holding one with 422 naming it', async () => {
      const res = await t.http.get(`${API}/admin/audit-log?action=user.%00`).set(bearer(root));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['action']);
      const unknown = await t.http.get(`${API}/health?probe=%00`);
      expectProblem(unknown, 422);
      expect(invalidFields(unknown)).toEqual(['probe']);
      // Bytes that are not UTF-8 stay as sent in a query value: storable, so the route answers.
      expect((await t.http.get(`${products()}?q=%FF%ED%A0%80`).set(bearer(user))).status).toBe(200);
    });

    it('refuses a JSON field holding one at any depth, unauthenticated or not', async () => {
      const lone = await t.http
        .post(`${API}/auth/forgot-password`)
        .set('Content-Type', 'application/json')
        .send('{"email":"\\ud800@example.test"}');
      expectProblem(lone, 422);
      expect(invalidFields(lone)).toEqual(['email']);

      const low = await t.http
        .post(products())
        .set(bearer(user))
        .set('Content-Type', 'application/json')
        .send('{"name":"x\\udc00y","tags":["ok","a\\u0000b"],"attributes":{"deep":[{"k":"\\u0000"}]}}');
      expectProblem(low, 422);
      expect(invalidFields(low)).toEqual(['name', 'tags.1', 'attributes.deep.0.k']);

      const key = await t.http
        .patch(`${API}/preferences`)
        .set(bearer(user))
        .set('Content-Type', 'application/json')
        .send('{"ui":{"time\\u0000zone":"UTC"}}');
      expectProblem(key, 422);
      expect(invalidFields(key)).toEqual(['ui.time\\u0000zone']);
    });

    it('walks bodies of any depth without recursion', async () => {
      const depth = 20_000;
      const res = await t.http
        .post(products())
        .set(bearer(user))
        .set('Content-Type', 'application/json')
        .send(`{"attributes":{"x":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}}`);
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual([`attributes.x${'.0'.repeat(depth)}`]);
    });

    it('keeps surrogate pairs, tabs, newlines and other control characters in free text', async () => {
      const res = await t.http
        .post(products())
        .set(bearer(user))
        .send({
          name: `Orders \u{1F4E6} ${randomUUID().slice(0, 8)}`,
          description: 'line one\n\tline two\u0007',
        });
      expect(res.status).toBe(201);
      expect(res.body.description).toBe('line one\n\tline two\u0007');
      // Identifiers keep their own rules: a control character is no part of a slug or an email.
      const slug = await t.http.post(`${API}/spaces`).set(bearer(user)).send({ name: 'x', slug: 'a\u0001b' });
      expectProblem(slug, 422);
      expect(invalidFields(slug)).toEqual(['slug']);
      const email = await t.http.post(`${API}/auth/forgot-password`).send({ email: 'a\u0001@example.test' });
      expectProblem(email, 422);
    });

    it('answers 4xx, never 500, on every documented route given such values in path, query or body', async () => {
      const document = (await t.http.get(`${API}/openapi.json`)).body as OpenApi;
      const failures: string[] = [];
      let requests = 0;
      const attempt = async (method: (typeof METHODS)[number], url: string, body?: string, type?: string) => {
        let call = t.http[method](url).set(bearer(root));
        if (body !== undefined) call = call.set('Content-Type', type ?? 'application/json').send(body);
        const res = await call;
        requests++;
        // SCIM routes answer SCIM error bodies (RFC 7644), every other route problem details.
        const errorType = url.startsWith(`${API}/scim/v2/`) ? /scim\+json/ : /problem\+json/;
        if (res.status < 400 || res.status >= 500 || !errorType.test(res.headers['content-type'] ?? '')) {
          failures.push(`${method.toUpperCase()} ${url} -> ${res.status}`);
        }
      };
      const fill = (template: string, value: (p: Parameter) => string, params: Parameter[]) =>
        template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
          const param = params.find((p) => p.name === name && p.in === 'path');
          return param ? value(param) : 'x';
        });
      const stringFields = (schemaRef: string | undefined): string[] => {
        const name = schemaRef?.replace('#/components/schemas/', '');
        const properties = name ? (document.components.schemas[name]?.properties ?? {}) : {};
        const strings = Object.entries(properties).filter(([, p]) => p.type === 'string');
        return strings.length ? strings.map(([field]) => field) : ['name'];
      };

      for (const [template, item] of Object.entries(document.paths)) {
        for (const method of METHODS) {
          const operation = item[method];
          if (!operation) continue;
          const params = operation.parameters ?? [];
          const query = params.filter((p) => p.in === 'query');
          const real = fill(
            template,
            (p) => (p.schema?.format === 'uuid' ? randomUUID() : space.slug),
            params,
          );
          if (params.some((p) => p.in === 'path')) {
            await attempt(
              method,
              fill(template, () => 'a%00b', params),
            );
          }
          const queryNames = query.length ? query.map((p) => p.name) : ['q'];
          await attempt(method, `${real}?${queryNames.map((name) => `${name}=a%00b`).join('&')}`);
          const content = operation.requestBody?.content ?? {};
          if (content['application/json']) {
            for (const text of ['a\\u0000b', '\\ud800']) {
              const fields = stringFields(content['application/json'].schema?.$ref);
              await attempt(method, real, `{${fields.map((f) => `"${f}":"${text}"`).join(',')}}`);
            }
          }
          if (content['application/x-www-form-urlencoded']) {
            await attempt(method, real, 'username=a%00b&password=a%00b', 'application/x-www-form-urlencoded');
          }
        }
      }
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThan(150);
    });
  });
});
