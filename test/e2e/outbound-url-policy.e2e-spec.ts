import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { HostResolver } from '../../src/platform/outbound-http/host-resolver';
import { startApp, TestApp } from '../support/app';
import { bearer, createSpace, createUser, rootUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';
import { newIdpKeys } from '../support/saml-idp';
import { SSRF_TEST_RESOLVER, SSRF_VECTORS, SsrfVector } from '../support/ssrf-vectors';

const API = '/api/v1.0';
const idpCertificate = newIdpKeys().certificate;

/** Every field that names an outbound URL or host, saved through its real route. */
interface OutboundField {
  name: string;
  field: string;
  /** The request saving `value` in the field, or null where the vector does not apply to the field. */
  save(t: TestApp, ctx: Ctx, vector: SsrfVector): Promise<Response> | null;
}

interface Ctx {
  root: TestUser;
  admin: TestUser;
  space: TestSpace;
}

const FIELDS: OutboundField[] = [
  {
    name: 'webhook url',
    field: 'url',
    save: (t, { admin, space }, { url }) =>
      t.http
        .post(`${API}/spaces/${space.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url, event_types: ['product.created'] }),
  },
  {
    name: 'AI configuration api_base_url',
    field: 'api_base_url',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/admin/ai-config`)
        .set(bearer(root))
        .send({ provider: 'openai_compatible', model_name: 'm', api_base_url: url }),
  },
  {
    name: 'model profile api_base_url',
    field: 'api_base_url',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/admin/ai-model-routing/profiles`)
        .set(bearer(root))
        .send({
          name: `p-${randomUUID().slice(0, 8)}`,
          provider: 'openai_compatible',
          model_name: 'm',
          api_base_url: url,
        }),
  },
  {
    name: 'embedding configuration api_base_url',
    field: 'api_base_url',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/admin/embedding-config`)
        .set(bearer(root))
        .send({ provider: 'openai', api_base_url: url }),
  },
  {
    name: 'SSO OIDC issuer',
    field: 'oidc.issuer',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/sso/providers`)
        .set(bearer(root))
        .send({ name: 'IdP', protocol: 'oidc', oidc: { issuer: url, client_id: 'verity' } }),
  },
  {
    name: 'SSO SAML entry point',
    field: 'saml.entry_point',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/sso/providers`)
        .set(bearer(root))
        .send({
          name: 'IdP',
          protocol: 'saml',
          saml: {
            entry_point: url,
            issuer: 'https://verity.example.test/sp',
            idp_certificate: idpCertificate,
          },
        }),
  },
  {
    name: 'web-search adapter endpoint of a tool provider',
    field: 'env.VERITY_WEB_SEARCH_ENDPOINT',
    save: (t, { root }, { url }) =>
      t.http
        .post(`${API}/admin/ai/tool-providers/`)
        .set(bearer(root))
        .send({
          slug: `ws-${randomUUID().slice(0, 8)}`,
          name: 'Metasearch',
          command_argv: ['node', 'dist/bin/metasearch-mcp.js'],
          env: { VERITY_WEB_SEARCH_ENDPOINT: url },
        }),
  },
  {
    name: 'connector host',
    field: 'config.connection_string',
    // Host vectors only: a connection string has its own scheme and carries credentials.
    save: (t, { admin, space }, { host }) =>
      host === undefined
        ? null
        : t.http
            .post(`${API}/connectors/spaces/${space.slug}`)
            .set(bearer(admin))
            .send({
              name: 'Warehouse',
              connector_type: 'postgresql',
              config: { connection_string: `postgres://reader:secret@${host}:5432/warehouse` },
            }),
  },
];

async function context(t: TestApp): Promise<Ctx> {
  const admin = await createUser(t.http);
  return { root: await rootUser(t.http), admin, space: await createSpace(t.http, admin) };
}

/** Saves every vector in the field and answers what was not a 422 naming the field with the reason. */
async function misses(t: TestApp, ctx: Ctx, field: OutboundField, vectors: SsrfVector[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const vector of vectors) {
    const res = await field.save(t, ctx, vector);
    if (res === null) continue;
    const error = (res.body.errors ?? []).find((e: { field: string }) => e.field === field.field);
    if (res.status !== 422 || error?.reason !== vector.reason) {
      wrong.push(`${vector.url}: ${res.status} ${JSON.stringify(res.body.errors ?? res.body)}`);
    } else {
      expectProblem(res, 422);
      expect(res.body.code).toBe('validation_failed');
    }
  }
  return wrong;
}

describe('the outbound-URL policy over HTTP, every URL and host field', () => {
  describe('with the default settings', () => {
    let t: TestApp;
    let ctx: Ctx;

    // A name that answers a public address when saved and loopback afterwards (DNS rebinding).
    let rebound = false;
    const resolver: HostResolver = (host) =>
      host === 'rebind.verity.test'
        ? Promise.resolve([{ address: rebound ? '127.0.0.1' : '93.184.215.14', family: 4 }])
        : SSRF_TEST_RESOLVER(host);

    beforeAll(async () => {
      t = await startApp({ hostResolver: resolver });
      ctx = await context(t);
    });
    afterAll(() => t.close());

    it.each(FIELDS.map((field) => [field.name, field] as const))(
      `refuses each of the ${SSRF_VECTORS.length} SSRF vectors in the %s with a 422 naming it and the reason`,
      async (_name, field) => {
        expect(await misses(t, ctx, field, SSRF_VECTORS)).toEqual([]);
      },
    );

    it('holds the fields changed with PATCH to the same policy', async () => {
      const hooks = `${API}/spaces/${ctx.space.slug}/webhooks`;
      const hook = await t.http
        .post(hooks)
        .set(bearer(ctx.admin))
        .send({ url: 'https://hooks.example.com/x', event_types: ['product.created'] });
      expect(hook.status).toBe(201);
      const sso = (body: object) => t.http.post(`${API}/sso/providers`).set(bearer(ctx.root)).send(body);
      const oidc = await sso({
        name: 'OIDC IdP',
        is_enabled: false,
        protocol: 'oidc',
        oidc: { issuer: 'https://idp.example.com', client_id: 'verity' },
      });
      expect(oidc.status).toBe(201);
      const saml = await sso({
        name: 'SAML IdP',
        is_enabled: false,
        protocol: 'saml',
        saml: {
          entry_point: 'https://idp.example.com/sso',
          issuer: 'https://verity.example.test/sp',
          idp_certificate: idpCertificate,
        },
      });
      expect(saml.status).toBe(201);
      const patches: OutboundField[] = [
        {
          name: 'webhook url',
          field: 'url',
          save: (_t, _ctx, { url }) =>
            t.http.patch(`${hooks}/${hook.body.id}`).set(bearer(ctx.admin)).send({ url }),
        },
        {
          name: 'SSO OIDC issuer',
          field: 'oidc.issuer',
          save: (_t, _ctx, { url }) =>
            t.http
              .patch(`${API}/sso/providers/${oidc.body.id}`)
              .set(bearer(ctx.root))
              .send({ oidc: { issuer: url } }),
        },
        {
          name: 'SSO SAML entry point',
          field: 'saml.entry_point',
          save: (_t, _ctx, { url }) =>
            t.http
              .patch(`${API}/sso/providers/${saml.body.id}`)
              .set(bearer(ctx.root))
              .send({ saml: { entry_point: url } }),
        },
      ];
      for (const field of patches) expect(await misses(t, ctx, field, SSRF_VECTORS)).toEqual([]);
    });

    it('saves a public name as sent, and a name that does not resolve yet (its addresses are checked on connection)', async () => {
      const url = 'https://Public.Verity.test./hook';
      const res = await t.http
        .post(`${API}/spaces/${ctx.space.slug}/webhooks`)
        .set(bearer(ctx.admin))
        .send({ url, event_types: ['product.created'] });
      expect(res.status).toBe(201);
      expect(res.body.url).toBe(url);
      const later = await t.http
        .post(`${API}/admin/ai-model-routing/profiles`)
        .set(bearer(ctx.root))
        .send({
          name: `p-${randomUUID().slice(0, 8)}`,
          provider: 'openai',
          model_name: 'm',
          api_base_url: 'https://llm.example.com/v1',
        });
      expect(later.status).toBe(201);
    });

    it('checks the addresses again when connecting: a name rebound to loopback after saving is not called', async () => {
      const hooks = `${API}/spaces/${ctx.space.slug}/webhooks`;
      const saved = await t.http
        .post(hooks)
        .set(bearer(ctx.admin))
        .send({ url: 'https://rebind.verity.test/hook', event_types: ['product.created'] });
      expect(saved.status).toBe(201);
      rebound = true;
      const res = await t.http.post(`${hooks}/${saved.body.id}/test`).set(bearer(ctx.admin));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, status_code: null });
      expect(res.body.error).toMatch(/rebind\.verity\.test resolves to 127\.0\.0\.1 is a loopback address/);
      // And saving it again is refused now that it resolves to loopback.
      const again = await t.http
        .patch(`${hooks}/${saved.body.id}`)
        .set(bearer(ctx.admin))
        .send({ url: 'https://rebind.verity.test/other' });
      expectProblem(again, 422);
      expect(again.body.errors).toEqual([
        expect.objectContaining({ field: 'url', reason: 'private_address' }),
      ]);
    });
  });

  describe('with ALLOW_PRIVATE_NETWORK_TARGETS and every vector host in TRUSTED_AI_HOSTS', () => {
    let t: TestApp;
    let ctx: Ctx;
    const always = SSRF_VECTORS.filter((v) => v.always);

    beforeAll(async () => {
      const trusted = SSRF_VECTORS.map((v) => v.host ?? '').filter(
        (host) => /^[A-Za-z0-9:.[\]-]{1,80}$/.test(host) && !host.endsWith('.'),
      );
      t = await startApp({
        hostResolver: SSRF_TEST_RESOLVER,
        env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', TRUSTED_AI_HOSTS: trusted.join(',') },
      });
      ctx = await context(t);
    });
    afterAll(() => t.close());

    it.each(FIELDS.map((field) => [field.name, field] as const))(
      `still refuses the ${always.length} vectors no setting allows (metadata, unspecified, syntax) in the %s`,
      async (_name, field) => {
        expect(await misses(t, ctx, field, always)).toEqual([]);
      },
    );
  });
});
