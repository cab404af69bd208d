import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { bearer, createSpace, rootUser, TestSpace, TestUser } from '../support/factories';
import { fieldName, jsonPath, Schema, SchemaSampler, Segment } from '../support/openapi-samples';
import { invalidFields } from '../support/problem';

const API = '/api/v1.0';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}
interface OpenApi {
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: { schemas: Record<string, Schema> };
}

const UPLOAD = 'a multipart/form-data upload: its required part is the file, checked as a file (400, 413)';
const SCIM =
  'SCIM (RFC 7644, application/scim+json): SCIM error bodies, not problem details, and a free-form schema';

/** Operations with a request body this walk does not send, and why. */
const NOT_WALKED: Record<string, string> = {
  [`POST ${API}/catalog/spaces/{slug}/products/{product_id}/attachments`]: UPLOAD,
  [`POST ${API}/issues/tickets/{ticket_id}/attachments`]: UPLOAD,
  [`POST ${API}/scim/v2/Users`]: SCIM,
  [`PUT ${API}/scim/v2/Users/{id}`]: SCIM,
  [`PATCH ${API}/scim/v2/Users/{id}`]: SCIM,
  [`POST ${API}/scim/v2/Groups`]: SCIM,
  [`PUT ${API}/scim/v2/Groups/{id}`]: SCIM,
  [`PATCH ${API}/scim/v2/Groups/{id}`]: SCIM,
};

/** The body types walked: JSON, and flat forms (form login, the SAML POST binding). */
const BODY_TYPES = { 'application/json': 'json', 'application/x-www-form-urlencoded': 'form' } as const;
type BodyType = keyof typeof BODY_TYPES;
const isWalked = (type: string): type is BodyType => type in BODY_TYPES;

const TOOL_PROVIDERS = `POST ${API}/admin/ai/tool-providers`;
const LEARNING_HOOK = `POST ${API}/integrations/learning/ai-literacy`;

/**
 * Where the specification names another status for the case, that status wins
 * (docs/decisions.md#specified-status-wins): its error table gives 400 to an invalid tool-provider
 * configuration, which a provider without its slug or its command is.
 */
const SPEC_STATUS: Record<string, number> = {
  [`${TOOL_PROVIDERS} without slug`]: 400,
  [`${TOOL_PROVIDERS} without command_argv`]: 400,
};

const operationsOf = (document: OpenApi) =>
  Object.entries(document.paths).flatMap(([template, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ method, template, operation, key: `${method.toUpperCase()} ${template}` }] : [];
    }),
  );

describe('each required body property, left out in turn', () => {
  let t: TestApp;
  let root: TestUser;
  let space: TestSpace;
  let document: OpenApi;
  let sampler: SchemaSampler;
  let signer: Webhook;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    // Space-role guards answer 404 for an unknown space before the body is read: a real one is needed.
    space = await createSpace(t.http, root);
    document = (await t.http.get(`${API}/openapi.json`)).body as OpenApi;
    // The visual query reads its body only after finding the space and the connector it names.
    const connector = await t.http
      .post(`${API}/connectors/spaces/${space.slug}`)
      .set(bearer(root))
      .send({
        name: 'Walk warehouse',
        connector_type: 'postgresql',
        config: {
          connection_string: 'postgres://reader:walk-secret@db.example.com:5432/warehouse?sslmode=require',
        },
      });
    if (connector.status !== 201) {
      throw new Error(`connector: ${connector.status} ${JSON.stringify(connector.body)}`);
    }
    sampler = new SchemaSampler(document.components.schemas, {
      space_slug: space.slug,
      space_id: space.id,
      connector_id: connector.body.id,
    });
    // The learning system's webhook reads its body only once the signature checks out.
    const learning = await t.http
      .put(`${API}/admin/integrations/learning`)
      .set(bearer(root))
      .send({ is_enabled: true, regenerate_secret: true });
    expect(learning.status).toBe(200);
    signer = new Webhook(learning.body.secret as string);
  });
  afterAll(async () => {
    // Other suites on this worker's database find the learning integration as they expect it: unset.
    await t.http.delete(`${API}/admin/integrations/learning`).set(bearer(root));
    await t.close();
  });

  /** The path with real values: the test space's slug, fresh uuids (validation runs before any lookup). */
  const urlOf = (template: string, parameters: Parameter[]) =>
    template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      if (name === 'slug') return space.slug;
      const schema = parameters.find((p) => p.in === 'path' && p.name === name)?.schema ?? { type: 'string' };
      return encodeURIComponent(String(sampler.sample(schema)));
    });

  /** As the root user, except the learning webhook: signed as the learning system signs. */
  const send = (key: string, method: Method, url: string, type: BodyType, body: unknown) => {
    if (key !== LEARNING_HOOK) {
      const request = t.http[method](url).set(bearer(root)).type(BODY_TYPES[type]);
      return request.send(body as object);
    }
    const [id, at, raw] = [`msg_${randomUUID()}`, new Date(), JSON.stringify(body)];
    return t.http
      .post(url)
      .set('content-type', 'application/json')
      .set('webhook-id', id)
      .set('webhook-timestamp', String(Math.floor(at.getTime() / 1000)))
      .set('webhook-signature', signer.sign(id, at, raw))
      .send(raw);
  };

  it('walks every JSON or form request body, and lists why any other is not walked', () => {
    const unlisted = operationsOf(document)
      .filter(({ operation }) => operation.requestBody)
      .filter(({ operation }) => !Object.keys(operation.requestBody!.content).some(isWalked))
      .map(({ key }) => key)
      .filter((key) => !NOT_WALKED[key]);
    expect(unlisted).toEqual([]);
    const known = new Set(operationsOf(document).map(({ key }) => key));
    expect(Object.keys(NOT_WALKED).filter((key) => !known.has(key))).toEqual([]);
  });

  it('answers 422 problem details naming the missing field, at the top level and nested', async () => {
    const failures: string[] = [];
    const walked: string[] = [];
    const report = (key: string, path: Segment[], res: Response) => {
      const what =
        res.status === 422 ? JSON.stringify(res.body.errors) : JSON.stringify(res.body).slice(0, 300);
      failures.push(`${key} without ${jsonPath(path)}: ${res.status} ${what}`);
    };

    const bodies = operationsOf(document).flatMap((op) =>
      Object.entries(op.operation.requestBody?.content ?? {})
        .filter(([type, media]) => isWalked(type) && media.schema)
        .map(([type, media]) => ({ ...op, type: type as BodyType, schema: media.schema! })),
    );
    for (const { method, template, operation, key: route, type, schema } of bodies) {
      // Named by its route alone when sent as JSON, the usual case.
      const key = type === 'application/json' ? route : `${route} (${BODY_TYPES[type]})`;
      for (const path of sampler.requiredPaths(schema)) {
        let body: unknown;
        let url: string;
        try {
          body = sampler.without(schema, path);
          url = urlOf(template, operation.parameters ?? []);
        } catch (error) {
          failures.push(`${key} without ${jsonPath(path)}: no valid body: ${(error as Error).message}`);
          continue;
        }
        const res = await send(route, method, url, type, body);
        walked.push(`${key} without ${jsonPath(path)}`);
        const field = fieldName(path);
        const status = SPEC_STATUS[`${key} without ${field}`] ?? 422;
        const named = (res.body.errors ?? []) as Array<{ field: string; message: string }>;
        const ok =
          res.status === status &&
          /^application\/problem\+json/.test(res.headers['content-type'] ?? '') &&
          // Everything else in the body is valid, so the missing field is the only one named.
          invalidFields(res).join() === field &&
          (status !== 422 || named[0].message === `${field} is required.`);
        if (!ok) report(key, path, res);
      }
    }

    expect(failures).toEqual([]);
    // Nested objects, items of optional lists, optional nested objects and forms are reached too.
    expect(walked).toEqual(
      expect.arrayContaining([
        `POST ${API}/query/execute without query`,
        `POST ${API}/query/execute without query.table`,
        `POST ${API}/query/execute without query.filters[0].column`,
        `POST ${API}/query/execute without query.pivot.aggregate`,
        `POST ${API}/connectors/spaces/{slug} without config.connection_string`,
        `POST ${API}/auth/token (form) without password`,
        `POST ${API}/sso/callback (form) without SAMLResponse`,
      ]),
    );
    expect(walked.length).toBeGreaterThan(100);
  });
});
