import { randomUUID, verify } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import {
  AssertionOptions,
  encodeSamlResponse,
  newIdpKeys,
  readAuthnRequest,
  samlResponseXml,
  signAssertion,
} from '../support/saml-idp';

const API = '/api/v1.0';
const PUBLIC = 'http://app.verity.test';
const ACS = `${PUBLIC}${API}/sso/callback`;
const SP_ENTITY_ID = 'https://verity.example.test/saml/sp';
const ENTRY_POINT = 'https://idp.example.test/saml/sso';
const GENERIC = /^Single sign-on failed/;

describe('SSO with SAML 2.0 (signed assertions from a test IdP key)', () => {
  let t: TestApp;
  let root: TestUser;
  let providerId: string;
  const idpKeys = newIdpKeys();
  const otherKeys = newIdpKeys('Some other IdP');
  const domain = `saml-${randomUUID().slice(0, 8)}.example.test`;
  const email = (label: string) => `${label}-${randomUUID().slice(0, 6)}@${domain}`;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    const res = await t.http
      .post(`${API}/sso/providers`)
      .set(bearer(root))
      .send({
        name: 'Corporate SAML',
        protocol: 'saml',
        domains: [domain],
        jit_provisioning: true,
        saml: {
          entry_point: ENTRY_POINT,
          issuer: SP_ENTITY_ID,
          idp_certificate: idpKeys.certificate,
          sign_authn_requests: true,
        },
      });
    expect(res.status).toBe(201);
    providerId = res.body.id;
  });
  afterAll(() => t?.close());

  /** Starts a login as a browser would and returns the AuthnRequest ID the response must answer. */
  async function pendingRequest(): Promise<string> {
    const res = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
    return readAuthnRequest(res.headers.location).id;
  }

  async function assertion(overrides: Partial<AssertionOptions> = {}): Promise<string> {
    return samlResponseXml({
      inResponseTo: overrides.inResponseTo ?? (await pendingRequest()),
      acsUrl: ACS,
      audience: SP_ENTITY_ID,
      email: email('grace'),
      ...overrides,
    });
  }

  const post = (xml: string) =>
    t.http
      .post(`${API}/sso/callback`)
      .type('form')
      .send({ SAMLResponse: encodeSamlResponse(xml), RelayState: '' });

  async function lastFailure(): Promise<string> {
    const [row] = await dbQuery<{ details: { cause: string } }>(
      `SELECT details FROM audit_log WHERE action = 'sso.login_failed' ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    return row.details.cause;
  }

  it('registers a SAML provider with its own SP key pair; the private key never leaves', async () => {
    const res = await t.http.get(`${API}/sso/providers/${providerId}`).set(bearer(root)).expect(200);
    expect(res.body).toMatchObject({
      protocol: 'saml',
      oidc: null,
      saml: {
        entry_point: ENTRY_POINT,
        issuer: SP_ENTITY_ID,
        idp_certificate: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n/),
        sign_authn_requests: true,
        callback_url: ACS,
        metadata_url: `${PUBLIC}${API}/sso/providers/${providerId}/metadata`,
      },
    });
    const pemBody = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
    expect(pemBody(res.body.saml.idp_certificate)).toBe(pemBody(idpKeys.certificate));
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE KEY/);
    const [row] = await dbQuery<{ sp_private_key_sealed: string }>(
      'SELECT sp_private_key_sealed FROM sso_providers WHERE id = $1',
      [providerId],
    );
    expect(row.sp_private_key_sealed).toMatch(/^v1\./);
  });

  it('refuses an invalid SAML record (422)', async () => {
    const post = (saml: Record<string, unknown> | undefined) =>
      t.http.post(`${API}/sso/providers`).set(bearer(root)).send({ name: 'x', protocol: 'saml', saml });
    let res = await post(undefined);
    expect(invalidFields(res)).toEqual(['saml']);
    res = await post({
      entry_point: ENTRY_POINT,
      issuer: SP_ENTITY_ID,
      idp_certificate: 'not a certificate',
    });
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['saml.idp_certificate']);
    res = await post({
      entry_point: 'ftp://idp.example.test',
      issuer: SP_ENTITY_ID,
      idp_certificate: idpKeys.certificate,
    });
    expect(invalidFields(res)).toEqual(['saml.entry_point']);
  });

  it('publishes SP metadata XML (public)', async () => {
    const res = await t.http.get(`${API}/sso/providers/${providerId}/metadata`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
    const xml = res.text;
    expect(xml).toContain(`entityID="${SP_ENTITY_ID}"`);
    expect(xml).toMatch(/AuthnRequestsSigned="true"/);
    expect(xml).toMatch(
      new RegExp(
        `AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${ACS}"`,
      ),
    );
    const [row] = await dbQuery<{ sp_certificate: string }>(
      'SELECT sp_certificate FROM sso_providers WHERE id = $1',
      [providerId],
    );
    const body = row.sp_certificate.replace(/-----[A-Z ]+-----|\s/g, '');
    expect(xml.replace(/\s/g, '')).toContain(body);
    expectProblem(await t.http.get(`${API}/sso/providers/${randomUUID()}/metadata`), 404);
  });

  it('redirects with a signed AuthnRequest (HTTP-Redirect binding)', async () => {
    const res = await t.http.get(`${API}/sso/login/${providerId}`).expect(302);
    const location: string = res.headers.location;
    expect(location.startsWith(`${ENTRY_POINT}?`)).toBe(true);
    const { xml, params } = readAuthnRequest(location);
    expect(xml).toMatch(/^<\?xml|<samlp:AuthnRequest/);
    expect(xml).toContain(`Destination="${ENTRY_POINT}"`);
    expect(xml).toContain(`AssertionConsumerServiceURL="${ACS}"`);
    expect(xml).toMatch(new RegExp(`<saml:Issuer[^>]*>${SP_ENTITY_ID}</saml:Issuer>`));
    expect(params.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    // The signature covers the raw query parts in binding order, with the SP certificate of the metadata.
    const raw = location.slice(location.indexOf('?') + 1).split('&');
    const signed = ['SAMLRequest', 'RelayState', 'SigAlg']
      .map((name) => raw.find((part) => part.startsWith(`${name}=`)))
      .filter(Boolean)
      .join('&');
    const [row] = await dbQuery<{ sp_certificate: string }>(
      'SELECT sp_certificate FROM sso_providers WHERE id = $1',
      [providerId],
    );
    expect(
      verify(
        'sha256',
        Buffer.from(signed),
        row.sp_certificate,
        Buffer.from(params.get('Signature')!, 'base64'),
      ),
    ).toBe(true);
  });

  it('signs a new person in with a signed assertion (JIT), once', async () => {
    const person = email('grace');
    const xml = signAssertion(await assertion({ email: person }), idpKeys);
    const res = await post(xml);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(`${PUBLIC}/sso/complete`);
    const tokens = await t.http
      .post(`${API}/sso/exchange`)
      .send({ code: location.searchParams.get('code') })
      .expect(200);
    expect(tokens.headers['cache-control']).toBe('no-store');
    const me = await t.http
      .get(`${API}/auth/me`)
      .set('Authorization', `Bearer ${tokens.body.access_token}`)
      .expect(200);
    expect(me.body).toMatchObject({ email: person, first_name: 'Grace', last_name: 'Hopper' });

    // The same response again: its request was answered and its assertion ID is spent.
    expectProblem(await post(xml), 401, GENERIC);
  });

  it('accepts one of two concurrent posts of the same response', async () => {
    const xml = signAssertion(await assertion(), idpKeys);
    const statuses = (await Promise.all([post(xml), post(xml)])).map((r) => r.status).sort();
    expect(statuses).toEqual([303, 401]);
  });

  it('accepts an assertion ID only once, even answering a new request', async () => {
    const assertionId = `_a${randomUUID().replace(/-/g, '')}`;
    expect((await post(signAssertion(await assertion({ assertionId }), idpKeys))).status).toBe(303);
    expectProblem(await post(signAssertion(await assertion({ assertionId }), idpKeys)), 401, GENERIC);
    expect(await lastFailure()).toMatch(/replayed assertion/);
  });

  it('refuses tampered, unsigned and wrongly signed assertions', async () => {
    const signed = signAssertion(await assertion({ email: email('honest') }), idpKeys);
    const tampered = signed.replace(/honest-/g, 'mallory-');
    expectProblem(await post(tampered), 401, GENERIC);
    expect(await lastFailure()).toBe('assertion refused: Invalid signature');

    expectProblem(await post(await assertion()), 401, GENERIC);
    expect(await lastFailure()).toBe('assertion refused: Invalid signature');

    expectProblem(await post(signAssertion(await assertion(), otherKeys)), 401, GENERIC);
    expect(await lastFailure()).toBe('assertion refused: Invalid signature');
  });

  it('refuses expired assertions, a wrong audience, recipient or destination', async () => {
    expectProblem(
      await post(signAssertion(await assertion({ validForMs: -5 * 60 * 1000 }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/No valid subject confirmation/);
    expectProblem(
      await post(signAssertion(await assertion({ conditionsValidForMs: -60 * 1000 }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/SAML assertion expired/);

    expectProblem(
      await post(signAssertion(await assertion({ audience: 'https://someone-else.example.test' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/audience/i);

    expectProblem(
      await post(signAssertion(await assertion({ recipient: 'https://evil.example.test/acs' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/Recipient/);

    expectProblem(
      await post(signAssertion(await assertion({ destination: 'https://evil.example.test/acs' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/Destination/);
  });

  it('refuses unsolicited and malformed responses', async () => {
    expectProblem(
      await post(signAssertion(await assertion({ inResponseTo: '_never-sent' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatch(/InResponseTo/);
    const garbage = await t.http
      .post(`${API}/sso/callback`)
      .type('form')
      .send({ SAMLResponse: 'bm90IHhtbA==' });
    expectProblem(garbage, 401, GENERIC);
    expectProblem(await t.http.post(`${API}/sso/callback`).type('form').send({}), 422);
  });

  it('answers 403 for an unknown person when JIT is off, and signs an existing account in', async () => {
    await t.http
      .patch(`${API}/sso/providers/${providerId}`)
      .set(bearer(root))
      .send({ jit_provisioning: false })
      .expect(200);
    try {
      const stranger = email('stranger');
      expectProblem(
        await post(signAssertion(await assertion({ email: stranger }), idpKeys)),
        403,
        /No account exists/,
      );
      const known = await createUser(t.http, { email: email('known') });
      const res = await post(signAssertion(await assertion({ email: known.email }), idpKeys));
      expect(res.status).toBe(303);
      const [entry] = await dbQuery<{ actor_id: string }>(
        `SELECT actor_id FROM audit_log WHERE action = 'sso.login' AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [providerId],
      );
      expect(entry.actor_id).toBe(known.id);
    } finally {
      await t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ jit_provisioning: true });
    }
  });

  it('refuses a disabled provider: login 404, pending responses 401', async () => {
    const inResponseTo = await pendingRequest();
    await t.http
      .patch(`${API}/sso/providers/${providerId}`)
      .set(bearer(root))
      .send({ is_enabled: false })
      .expect(200);
    try {
      expectProblem(await t.http.get(`${API}/sso/login/${providerId}`), 404);
      expectProblem(await post(signAssertion(await assertion({ inResponseTo }), idpKeys)), 401, GENERIC);
      expect(await lastFailure()).toMatch(/disabled/);
      // Metadata stays available for setting the IdP up.
      await t.http.get(`${API}/sso/providers/${providerId}/metadata`).expect(200);
    } finally {
      await t.http.patch(`${API}/sso/providers/${providerId}`).set(bearer(root)).send({ is_enabled: true });
    }
  });
});
