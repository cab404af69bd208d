import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { OidcIdp, signInAtIdp, startOidcIdp } from '../support/oidc-idp';
import { freePort } from '../support/server-process';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const PUBLIC = 'http://app.verity.test';
const CALLBACK = `${PUBLIC}${API}/sso/callback`;
const GENERIC = /^Single sign-on failed/;

describe('SSO with a real OpenID Connect identity provider', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let root: TestUser;
  const domain = `oidc-${randomUUID().slice(0, 8)}.example.test`;
  const email = (label: string) => `${label}-${randomUUID().slice(0, 6)}@${domain}`;

  beforeAll(async () => {
    [t, idp] = await Promise.all([
      startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } }),
      startOidcIdp(CALLBACK),
    ]);
    root = await rootUser(t.http);
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
  });

  const oidcBlock = () => ({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret });

  async function createProvider(fields: Record<string, unknown> = {}): Promise<string> {
    const res = await t.http
      .post(`${API}/sso/providers`)
      .set(bearer(root))
      .send({ name: 'Test IdP', protocol: 'oidc', jit_provisioning: true, oidc: oidcBlock(), ...fields });
    if (res.status !== 201) throw new Error(`create provider: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  /** The browser's trip: our login redirect, the IdP's forms, back to the callback (not yet followed). */
  async function throughIdp(providerId: string, login: string): Promise<URL> {
    const start = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
    return signInAtIdp(start.headers.location, idp.issuer, login);
  }

  async function callback(url: URL) {
    expect(`${url.origin}${url.pathname}`).toBe(CALLBACK);
    return t.http.get(`${url.pathname}${url.search}`);
  }

  async function loginCode(providerId: string, login: string): Promise<string> {
    const res = await callback(await throughIdp(providerId, login));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(`${PUBLIC}/sso/complete`);
    return location.searchParams.get('code')!;
  }

  const lastAudit = async (action: string, resourceId: string) =>
    (
      await dbQuery<{ details: Record<string, unknown>; actor_id: string | null }>(
        `SELECT details, actor_id FROM audit_log WHERE action = $1 AND resource_id = $2 ORDER BY created_at DESC LIMIT 1`,
        [action, resourceId],
      )
    )[0];

  describe('providers (superadmin)', () => {
    it('refuses everyone but a superadmin', async () => {
      const user = await createUser(t.http);
      await t.http.get(`${API}/sso/providers`).expect(401);
      expectProblem(await t.http.get(`${API}/sso/providers`).set(bearer(user)), 403);
      expectProblem(
        await t.http
          .post(`${API}/sso/providers`)
          .set(bearer(user))
          .send({ name: 'x', protocol: 'oidc', oidc: oidcBlock() }),
        403,
      );
    });

    it('creates, reads, lists, updates and deletes a provider; the client secret is write-only and sealed', async () => {
      const ownDomain = `crud-${randomUUID().slice(0, 8)}.example.test`;
      const created = await t.http
        .post(`${API}/sso/providers`)
        .set(bearer(root))
        .send({ name: 'Okta', protocol: 'oidc', domains: [ownDomain.toUpperCase()], oidc: oidcBlock() })
        .expect(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'Okta',
        protocol: 'oidc',
        is_enabled: true,
        domains: [ownDomain],
        default_role: 'user',
        jit_provisioning: false,
        oidc: {
          issuer: idp.issuer,
          client_id: idp.clientId,
          client_secret_set: true,
          scopes: ['openid', 'email', 'profile'],
        },
        saml: null,
        login_url: `${PUBLIC}${API}/sso/login/${created.body.id}`,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const id = created.body.id;
      const [row] = await dbQuery<{ oidc_client_secret_sealed: string }>(
        'SELECT oidc_client_secret_sealed FROM sso_providers WHERE id = $1',
        [id],
      );
      expect(row.oidc_client_secret_sealed).toMatch(/^v1\./);
      expect(row.oidc_client_secret_sealed).not.toContain(idp.clientSecret);

      const one = await t.http.get(`${API}/sso/providers/${id}`).set(bearer(root)).expect(200);
      const list = await t.http.get(`${API}/sso/providers?limit=200`).set(bearer(root)).expect(200);
      expect(list.body.total).toBeGreaterThanOrEqual(1);
      expect(list.body.items.map((p: { id: string }) => p.id)).toContain(id);
      const patched = await t.http
        .patch(`${API}/sso/providers/${id}`)
        .set(bearer(root))
        .send({ name: 'Okta EU', oidc: { client_secret: null, scopes: ['openid', 'email'] } })
        .expect(200);
      expect(patched.body).toMatchObject({
        name: 'Okta EU',
        oidc: { client_secret_set: false, scopes: ['openid', 'email'], issuer: idp.issuer },
      });
      const audit = await dbQuery<{ details: unknown }>(
        `SELECT details FROM audit_log WHERE resource_id = $1 AND action LIKE 'sso_provider.%'`,
        [id],
      );
      expect(audit).toHaveLength(2);
      for (const body of [created.body, one.body, list.body, patched.body, audit]) {
        expect(JSON.stringify(body)).not.toContain(idp.clientSecret);
      }
      await t.http.delete(`${API}/sso/providers/${id}`).set(bearer(root)).expect(204);
      expectProblem(await t.http.get(`${API}/sso/providers/${id}`).set(bearer(root)), 404);
    });

    it('validates the record: unknown protocol, missing or foreign block, URLs, scopes, unknown fields', async () => {
      const post = (body: Record<string, unknown>) =>
        t.http.post(`${API}/sso/providers`).set(bearer(root)).send(body);
      let res = await post({ name: 'x', protocol: 'ldap', oidc: oidcBlock() });
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain('protocol');
      res = await post({ name: 'x', protocol: 'oidc' });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['oidc']);
      res = await post({
        name: 'x',
        protocol: 'oidc',
        oidc: oidcBlock(),
        saml: { entry_point: 'https://idp.example.com/sso', issuer: 'x', idp_certificate: 'x' },
      });
      expect(invalidFields(res)).toEqual(['saml']);
      res = await post({
        name: 'x',
        protocol: 'oidc',
        oidc: { ...oidcBlock(), issuer: 'http://idp.example.com' },
      });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['oidc.issuer']);
      res = await post({ name: 'x', protocol: 'oidc', oidc: { ...oidcBlock(), scopes: ['email'] } });
      expect(invalidFields(res)).toEqual(['oidc.scopes']);
      res = await post({ name: 'x', protocol: 'oidc', oidc: { ...oidcBlock(), extra: 1 } });
      expectProblem(res, 422);
      res = await post({ name: 'x', protocol: 'oidc', domains: ['not a domain'], oidc: oidcBlock() });
      expect(invalidFields(res)).toContain('domains');
      res = await post({ name: 'x', protocol: 'oidc', default_role: 'superadmin', oidc: oidcBlock() });
      expect(invalidFields(res)).toContain('default_role');
      expectProblem(await t.http.get(`${API}/sso/providers/not-a-uuid`).set(bearer(root)), 422);
    });

    it('keeps a domain to one enabled provider (409)', async () => {
      const shared = `dup-${randomUUID().slice(0, 8)}.example.test`;
      const first = await createProvider({ domains: [shared] });
      const clash = await t.http
        .post(`${API}/sso/providers`)
        .set(bearer(root))
        .send({
          name: 'Second',
          protocol: 'oidc',
          domains: ['other.example.test', shared],
          oidc: oidcBlock(),
        });
      expectProblem(clash, 409, new RegExp(shared.replace(/\./g, '\\.')));
      // A disabled provider may list it; enabling it again conflicts.
      const second = await createProvider({ domains: [shared], is_enabled: false });
      expectProblem(
        await t.http.patch(`${API}/sso/providers/${second}`).set(bearer(root)).send({ is_enabled: true }),
        409,
      );
      await t.http.delete(`${API}/sso/providers/${first}`).set(bearer(root)).expect(204);
      await t.http
        .patch(`${API}/sso/providers/${second}`)
        .set(bearer(root))
        .send({ is_enabled: true })
        .expect(200);
    });
  });

  describe('the browser flow', () => {
    let providerId: string;
    beforeAll(async () => {
      providerId = await createProvider({ domains: [domain] });
    });

    it('redirects to the IdP with PKCE S256, state and nonce', async () => {
      const res = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
      const location = new URL(res.headers.location);
      expect(location.origin).toBe(idp.issuer);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({
        client_id: idp.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid email profile',
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        state: expect.any(String),
        nonce: expect.any(String),
      });
    });

    it('describes the redirects as JSON when asked (Accept: application/json)', async () => {
      const start = await t.http.get(`${API}/sso/login/${providerId}`).set('Accept', 'application/json');
      expect(start.status).toBe(200);
      expect(start.body).toEqual({ location: expect.stringMatching(new RegExp(`^${idp.issuer}/`)) });
      const back = await signInAtIdp(start.body.location, idp.issuer, email('spa'));
      const done = await t.http.get(`${back.pathname}${back.search}`).set('Accept', 'application/json');
      expect(done.status).toBe(200);
      expect(done.headers['cache-control']).toBe('no-store');
      const code = new URL(done.body.location).searchParams.get('code');
      await t.http.post(`${API}/sso/exchange`).send({ code }).expect(200);
    });

    it('signs a new person in end to end (JIT), and the code works once', async () => {
      const person = email('ada');
      const code = await loginCode(providerId, person);
      const tokens = await t.http.post(`${API}/sso/exchange`).send({ code }).expect(200);
      expect(tokens.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 1800,
        refresh_token: expect.any(String),
      });
      expect(tokens.headers['cache-control']).toBe('no-store');
      expect(String(tokens.headers['set-cookie'])).toMatch(/verity_refresh=.*HttpOnly/);
      const me = await t.http
        .get(`${API}/auth/me`)
        .set('Authorization', `Bearer ${tokens.body.access_token}`)
        .expect(200);
      expect(me.body).toMatchObject({
        email: person,
        first_name: 'Ada',
        last_name: 'Lovelace',
        is_superadmin: false,
      });
      // A normal session: the refresh token rotates.
      await t.http.post(`${API}/auth/refresh`).send({ refresh_token: tokens.body.refresh_token }).expect(200);

      expectProblem(await t.http.post(`${API}/sso/exchange`).send({ code }), 401);
      expect((await lastAudit('sso.user_provisioned', me.body.id)).details).toMatchObject({
        provider_id: providerId,
      });
      expect((await lastAudit('sso.login', providerId)).actor_id).toBe(me.body.id);
    });

    it('signs an existing account in without JIT; an unknown email then gets 403', async () => {
      await t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ jit_provisioning: false });
      try {
        const existing = await createUser(t.http, { email: email('grace') });
        const code = await loginCode(providerId, existing.email.toUpperCase());
        const tokens = await t.http.post(`${API}/sso/exchange`).send({ code }).expect(200);
        const me = await t.http
          .get(`${API}/auth/me`)
          .set('Authorization', `Bearer ${tokens.body.access_token}`);
        expect(me.body.id).toBe(existing.id);

        const stranger = email('stranger');
        const refused = await callback(await throughIdp(providerId, stranger));
        expectProblem(refused, 403, /No account exists/);
        expect(await dbQuery('SELECT 1 FROM users WHERE email = $1', [stranger])).toHaveLength(0);
        expect((await lastAudit('sso.login_failed', providerId)).details).toMatchObject({
          reason: 'account_unknown',
          cause: 'unknown user and just-in-time provisioning is off',
          email: stranger,
        });
      } finally {
        await t.http
          .patch(`${API}/sso/providers/${providerId}`)
          .set(bearer(root))
          .send({ jit_provisioning: true });
      }
    });

    it('refuses a deactivated account (403), and creates pending accounts inactive', async () => {
      const user = await createUser(t.http, { email: email('gone') });
      await t.http.patch(`${API}/users/${user.id}`).set(bearer(root)).send({ is_active: false }).expect(200);
      expectProblem(await callback(await throughIdp(providerId, user.email)), 403, /deactivated/);

      await t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ default_role: 'pending' });
      try {
        const newcomer = email('pending');
        expectProblem(await callback(await throughIdp(providerId, newcomer)), 403, /awaits activation/);
        const [row] = await dbQuery<{ is_active: boolean; is_superadmin: boolean }>(
          'SELECT is_active, is_superadmin FROM users WHERE email = $1',
          [newcomer],
        );
        expect(row).toEqual({ is_active: false, is_superadmin: false });
      } finally {
        await t.http
          .patch(`${API}/sso/providers/${providerId}`)
          .set(bearer(root))
          .send({ default_role: 'user' });
      }
    });

    it('refuses a state that matches no pending login (401, generic detail, cause audited)', async () => {
      const back = await throughIdp(providerId, email('mallory'));
      back.searchParams.set('state', 'forged-state');
      const res = await callback(back);
      expectProblem(res, 401, GENERIC);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      const [entry] = await dbQuery<{ details: { reason: string; cause: string } }>(
        `SELECT details FROM audit_log WHERE action = 'sso.login_failed' ORDER BY created_at DESC LIMIT 1`,
      );
      expect(entry.details).toMatchObject({ reason: 'state_mismatch', cause: /state mismatch/ });
      // The real state was not consumed by the forgery, but is single use.
      expectProblem(await callback(new URL(back.toString().replace('forged-state', 'x'))), 401);
    });

    it('refuses a replayed callback (the state is single use)', async () => {
      const back = await throughIdp(providerId, email('replay'));
      expect((await callback(back)).status).toBe(302);
      expectProblem(await callback(back), 401, GENERIC);
    });

    it('refuses an ID token whose nonce does not match (401)', async () => {
      const start = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
      const state = new URL(start.headers.location).searchParams.get('state')!;
      const keyHash = createHash('sha256').update(`oidc:${state}`).digest('hex');
      await dbQuery(`UPDATE sso_pending_logins SET nonce = 'another-nonce' WHERE key_hash = $1`, [keyHash]);
      const back = await signInAtIdp(start.headers.location, idp.issuer, email('nonce'));
      expectProblem(await callback(back), 401, GENERIC);
      expect((await lastAudit('sso.login_failed', providerId)).details).toMatchObject({
        reason: 'token_invalid',
        cause: /"nonce" claim/,
      });
    });

    it('refuses an error answer of the IdP and an unverified email (401)', async () => {
      const start = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
      const state = new URL(start.headers.location).searchParams.get('state')!;
      const denied = await t.http.get(`${API}/sso/callback`).query({ error: 'access_denied', state });
      expectProblem(denied, 401, GENERIC);
      expect((await lastAudit('sso.login_failed', providerId)).details).toMatchObject({
        reason: 'idp_error',
        cause: /access_denied/,
      });

      const unverified = await callback(
        await throughIdp(providerId, `unverified-${randomUUID().slice(0, 6)}@${domain}`),
      );
      expectProblem(unverified, 401, GENERIC);
      expect((await lastAudit('sso.login_failed', providerId)).details).toMatchObject({
        reason: 'email_unverified',
        cause: /verified/,
      });
    });

    it('refuses an expired or unknown one-time code (401)', async () => {
      const code = await loginCode(providerId, email('late'));
      const hash = createHash('sha256').update(code).digest('hex');
      await dbQuery(
        `UPDATE sso_login_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1`,
        [hash],
      );
      expectProblem(await t.http.post(`${API}/sso/exchange`).send({ code }), 401, /expired/);
      expectProblem(await t.http.post(`${API}/sso/exchange`).send({ code: 'vsc_nothing' }), 401);
      expectProblem(await t.http.post(`${API}/sso/exchange`).send({}), 422);
    });

    it('discovers the provider by email domain', async () => {
      const found = await t.http
        .get(`${API}/sso/discover`)
        .query({ email: `Someone@${domain.toUpperCase()}` });
      expect(found.status).toBe(200);
      expect(found.body).toEqual({
        provider_id: providerId,
        name: 'Test IdP',
        protocol: 'oidc',
        login_url: `${PUBLIC}${API}/sso/login/${providerId}`,
      });
      expectProblem(await t.http.get(`${API}/sso/discover`).query({ email: 'a@nowhere.example.test' }), 404);
      expectProblem(await t.http.get(`${API}/sso/discover`).query({ email: 'not-an-email' }), 422);
    });

    it('answers 502 when the issuer cannot be discovered', async () => {
      const closed = await freePort();
      const unreachable = await createProvider({
        oidc: { ...oidcBlock(), issuer: `http://127.0.0.1:${closed}` },
      });
      expectProblem(await t.http.get(`${API}/sso/login/${unreachable}`), 502, /could not be reached/);
    });

    it('calls the IdP only through the address-checking client: a token endpoint on a metadata address is refused', async () => {
      const rogue = createServer((req, res) => {
        const issuer = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/auth`,
            token_endpoint: 'http://169.254.169.254/latest/meta-data/token',
            jwks_uri: 'http://169.254.169.254/latest/meta-data/jwks',
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
          }),
        );
      });
      await new Promise<void>((resolve) => rogue.listen(0, '127.0.0.1', resolve));
      try {
        const issuer = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
        const provider = await createProvider({ oidc: { ...oidcBlock(), issuer } });
        const start = await t.http
          .get(`${API}/sso/login/${provider}`)
          .set('Accept', 'application/json')
          .expect(200);
        const state = new URL(start.body.location).searchParams.get('state')!;
        expectProblem(await t.http.get(`${API}/sso/callback`).query({ code: 'stolen', state }), 401, GENERIC);
        expect((await lastAudit('sso.login_failed', provider)).details.cause).toMatch(
          /Refused http:\/\/169\.254\.169\.254/,
        );
      } finally {
        await new Promise((resolve) => rogue.close(resolve));
      }
    });

    it('answers 404 for an unknown or disabled provider', async () => {
      expectProblem(await t.http.get(`${API}/sso/login/${randomUUID()}`), 404);
      const disabled = await createProvider({ is_enabled: false });
      expectProblem(await t.http.get(`${API}/sso/login/${disabled}`), 404);
    });
  });
});
