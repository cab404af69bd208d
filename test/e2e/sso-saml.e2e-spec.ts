import { randomUUID, verify } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import {
  AssertionOptions,
  encodeSamlResponse,
  IDP_ENTITY_ID,
  newIdpKeys,
  readAuthnRequest,
  samlResponseXml,
  samlStatusResponseXml,
  signAssertion,
  URI_NAME_FORMAT,
} from '../support/saml-idp';

const API = '/api/v1.0';
const PUBLIC = 'http://app.verity.test';
const ACS = `${PUBLIC}${API}/sso/callback`;
const SP_ENTITY_ID = 'https://verity.example.test/saml/sp';
const ENTRY_POINT = 'https://idp.example.test/saml/sso';
const GENERIC = /^Single sign-on failed/;
const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

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

  /** The last refusal's audit details: a stable reason code and the sentence for the admin. */
  async function lastFailure(): Promise<{ reason: string; cause: string } & Record<string, unknown>> {
    const [row] = await dbQuery<{ details: { reason: string; cause: string } }>(
      `SELECT details FROM audit_log WHERE action = 'sso.login_failed' ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    return row.details;
  }

  /** The profile of the person a successful callback signed in. */
  async function meAfter(callback: { headers: Record<string, string> }): Promise<Record<string, unknown>> {
    const code = new URL(callback.headers.location).searchParams.get('code');
    const tokens = await t.http.post(`${API}/sso/exchange`).send({ code }).expect(200);
    const me = await t.http
      .get(`${API}/auth/me`)
      .set('Authorization', `Bearer ${tokens.body.access_token}`)
      .expect(200);
    return me.body as Record<string, unknown>;
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
        idp_entity_id: null,
        allow_sha1_signatures: false,
        name_id_format: UNSPECIFIED,
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
    // No NameIDFormat unless the provider names one (see the NameID format test).
    expect(xml).not.toContain('NameIDFormat');
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
    expect(await lastFailure()).toMatchObject({ reason: 'replayed_assertion', cause: /replayed assertion/ });
  });

  it('refuses tampered, unsigned and wrongly signed assertions (signature_invalid)', async () => {
    const signed = signAssertion(await assertion({ email: email('honest') }), idpKeys);
    const tampered = signed.replace(/honest-/g, 'mallory-');
    const signatureInvalid = {
      reason: 'signature_invalid',
      cause: "the signature does not verify with the provider's idp_certificate (Invalid signature)",
    };
    expectProblem(await post(tampered), 401, GENERIC);
    const failure = await lastFailure();
    expect(failure).toMatchObject({ ...signatureInvalid, provider_id: providerId, status: 401 });
    // Nothing of the assertion's content is kept, not even the (unverified) email.
    expect(JSON.stringify(failure)).not.toMatch(/mallory|honest|@/);

    expectProblem(await post(await assertion()), 401, GENERIC);
    expect(await lastFailure()).toMatchObject(signatureInvalid);

    expectProblem(await post(signAssertion(await assertion(), otherKeys)), 401, GENERIC);
    expect(await lastFailure()).toMatchObject(signatureInvalid);
  });

  it('names an expired or not yet valid assertion, with the timestamp at fault', async () => {
    expectProblem(
      await post(signAssertion(await assertion({ validForMs: -5 * 60 * 1000 }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({
      reason: 'assertion_expired',
      cause: expect.stringMatching(
        /^the assertion expired: its SubjectConfirmationData NotOnOrAfter \d{4}-\d\d-\d\dT[\d:.]+Z is past \(30 s of clock skew allowed\)$/,
      ),
    });
    expectProblem(
      await post(signAssertion(await assertion({ conditionsValidForMs: -60 * 1000 }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({
      reason: 'assertion_expired',
      cause: expect.stringMatching(/^the assertion expired: its Conditions NotOnOrAfter /),
    });
    expectProblem(
      await post(signAssertion(await assertion({ validFromMs: 5 * 60 * 1000 }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({
      reason: 'assertion_not_yet_valid',
      cause: expect.stringMatching(/^the assertion is not yet valid: its Conditions NotBefore .* is ahead/),
    });
  });

  it('refuses a wrong audience, recipient or destination, each named', async () => {
    expectProblem(
      await post(signAssertion(await assertion({ audience: 'https://someone-else.example.test' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({ reason: 'audience_mismatch', cause: /audience/i });

    expectProblem(
      await post(signAssertion(await assertion({ recipient: 'https://evil.example.test/acs' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({ reason: 'wrong_recipient', cause: /Recipient/ });

    expectProblem(
      await post(signAssertion(await assertion({ destination: 'https://evil.example.test/acs' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({
      reason: 'wrong_destination',
      cause: `wrong Destination https://evil.example.test/acs (expected ${ACS})`,
    });
  });

  it("names the identity provider's error status (top-level, second-level, StatusMessage)", async () => {
    const refusal = async (code: string, subCode?: string, message?: string) =>
      post(
        samlStatusResponseXml({
          inResponseTo: await pendingRequest(),
          acsUrl: ACS,
          code: `urn:oasis:names:tc:SAML:2.0:status:${code}`,
          subCode: subCode && `urn:oasis:names:tc:SAML:2.0:status:${subCode}`,
          message,
        }),
      );
    expectProblem(
      await refusal('Responder', 'NoPassive', 'Passive authentication not possible'),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({
      reason: 'idp_status',
      cause:
        'the identity provider answered Responder/NoPassive (urn:oasis:names:tc:SAML:2.0:status:Responder, urn:oasis:names:tc:SAML:2.0:status:NoPassive): Passive authentication not possible',
    });
    expectProblem(await refusal('Requester', 'RequestDenied'), 401, GENERIC);
    expect(await lastFailure()).toMatchObject({
      reason: 'idp_status',
      cause: expect.stringMatching(/^the identity provider answered Requester\/RequestDenied \(/),
    });
  });

  it('refuses SHA-1 signatures and digests unless the provider allows them (legacy)', async () => {
    const legacy = async (sha1: { sha1Signature?: boolean; sha1Digest?: boolean }) =>
      post(signAssertion(await assertion(), idpKeys, sha1));
    expectProblem(await legacy({ sha1Signature: true, sha1Digest: true }), 401, GENERIC);
    expect(await lastFailure()).toMatchObject({
      reason: 'sha1_signature',
      cause: expect.stringContaining('http://www.w3.org/2000/09/xmldsig#rsa-sha1'),
    });
    expectProblem(await legacy({ sha1Digest: true }), 401, GENERIC);
    expect(await lastFailure()).toMatchObject({
      reason: 'sha1_signature',
      cause: expect.stringContaining('http://www.w3.org/2000/09/xmldsig#sha1'),
    });

    const res = await t.http
      .patch(`${API}/sso/providers/${providerId}`)
      .set(bearer(root))
      .send({ saml: { allow_sha1_signatures: true } })
      .expect(200);
    expect(res.body.saml.allow_sha1_signatures).toBe(true);
    try {
      expect((await legacy({ sha1Signature: true, sha1Digest: true })).status).toBe(303);
      expect((await legacy({ sha1Digest: true })).status).toBe(303);
    } finally {
      await t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ saml: { allow_sha1_signatures: false } })
        .expect(200);
    }
    expectProblem(await legacy({ sha1Signature: true }), 401, GENERIC);
    const [entry] = await dbQuery<{ details: { saml_fields: string[] } }>(
      `SELECT details FROM audit_log WHERE action = 'sso_provider.updated' AND resource_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [providerId],
    );
    expect(entry.details.saml_fields).toEqual(['allow_sha1_signatures']);
  });

  it('asks for the unspecified NameID format unless the provider names one', async () => {
    const nameIdPolicy = async () => {
      const { xml } = readAuthnRequest(
        (await t.http.get(`${API}/sso/login/${providerId}`).expect(302)).headers.location,
      );
      return /<samlp:NameIDPolicy[^>]*Format="([^"]+)"/.exec(xml)?.[1];
    };
    const format = (f: string | null) =>
      t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ saml: { name_id_format: f } });

    expect(await nameIdPolicy()).toBe(UNSPECIFIED);
    expect(
      (await t.http.get(`${API}/sso/providers/${providerId}`).set(bearer(root))).body.saml.name_id_format,
    ).toBe(UNSPECIFIED);
    const persistent = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
    expect((await format(persistent).expect(200)).body.saml.name_id_format).toBe(persistent);
    try {
      expect(await nameIdPolicy()).toBe(persistent);
      expect((await t.http.get(`${API}/sso/providers/${providerId}/metadata`)).text).toContain(
        `<NameIDFormat>${persistent}</NameIDFormat>`,
      );
      const refused = await format('urn:example:not-a-format');
      expectProblem(refused, 422);
      expect(invalidFields(refused)).toEqual(['saml.name_id_format']);
      expectProblem(await format('urn:oasis:names:tc:SAML:2.0:nameid-format:entity'), 422);
      // Naming `unspecified` is the default: asked for, and left out of the metadata.
      expect((await format(UNSPECIFIED).expect(200)).body.saml.name_id_format).toBe(UNSPECIFIED);
      expect(await nameIdPolicy()).toBe(UNSPECIFIED);
      expect((await t.http.get(`${API}/sso/providers/${providerId}/metadata`)).text).not.toContain(
        'NameIDFormat',
      );
    } finally {
      expect((await format(null).expect(200)).body.saml.name_id_format).toBe(UNSPECIFIED);
    }
    expect(await nameIdPolicy()).toBe(UNSPECIFIED);
  });

  it('takes names and email from URI attribute names (urn:oid) and claim URIs', async () => {
    const viaOid = email('oid');
    const res = await post(
      signAssertion(
        await assertion({
          email: viaOid,
          attributes: [
            { name: 'urn:oid:0.9.2342.19200300.100.1.3', values: [viaOid], nameFormat: URI_NAME_FORMAT },
            { name: 'urn:oid:2.5.4.42', values: ['Katherine'], nameFormat: URI_NAME_FORMAT },
            { name: 'urn:oid:2.5.4.4', values: ['Johnson'], nameFormat: URI_NAME_FORMAT },
          ],
        }),
        idpKeys,
      ),
    );
    expect(res.status).toBe(303);
    expect(await meAfter(res)).toMatchObject({
      email: viaOid,
      first_name: 'Katherine',
      last_name: 'Johnson',
    });

    const viaClaims = email('claims');
    const claims = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
    const azure = await post(
      signAssertion(
        await assertion({
          email: viaClaims,
          attributes: [
            { name: `${claims}/emailaddress`, values: [viaClaims] },
            { name: 'http://schemas.microsoft.com/identity/claims/displayname', values: ['Dorothy Vaughan'] },
          ],
        }),
        idpKeys,
      ),
    );
    expect(azure.status).toBe(303);
    expect(await meAfter(azure)).toMatchObject({
      email: viaClaims,
      first_name: 'Dorothy',
      last_name: 'Vaughan',
    });

    expectProblem(
      await post(
        signAssertion(
          await assertion({
            nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
            attributes: [{ name: 'cn', values: ['Nobody'] }],
          }),
          idpKeys,
        ),
      ),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({ reason: 'no_email' });
  });

  it('checks the Issuer against idp_entity_id when the provider sets it', async () => {
    const set = (idp_entity_id: string | null) =>
      t.http
        .patch(`${API}/sso/providers/${providerId}`)
        .set(bearer(root))
        .send({ saml: { idp_entity_id } })
        .expect(200);
    expect((await set(IDP_ENTITY_ID)).body.saml.idp_entity_id).toBe(IDP_ENTITY_ID);
    try {
      expect((await post(signAssertion(await assertion(), idpKeys))).status).toBe(303);
      expectProblem(
        await post(signAssertion(await assertion({ issuer: 'https://other-idp.example.test' }), idpKeys)),
        401,
        GENERIC,
      );
      expect(await lastFailure()).toMatchObject({
        reason: 'wrong_issuer',
        cause: `wrong Issuer https://other-idp.example.test (expected saml.idp_entity_id ${IDP_ENTITY_ID})`,
      });
    } finally {
      expect((await set(null)).body.saml.idp_entity_id).toBeNull();
    }
    expect(
      (await post(signAssertion(await assertion({ issuer: 'https://other-idp.example.test' }), idpKeys)))
        .status,
    ).toBe(303);
  });

  it('refuses unsolicited and malformed responses', async () => {
    expectProblem(
      await post(signAssertion(await assertion({ inResponseTo: '_never-sent' }), idpKeys)),
      401,
      GENERIC,
    );
    expect(await lastFailure()).toMatchObject({ reason: 'unknown_request', cause: /InResponseTo/ });
    const garbage = await t.http
      .post(`${API}/sso/callback`)
      .type('form')
      .send({ SAMLResponse: 'bm90IHhtbA==' });
    expectProblem(garbage, 401, GENERIC);
    expect(await lastFailure()).toMatchObject({ reason: 'malformed_response' });
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
      expect(await lastFailure()).toMatchObject({ reason: 'provider_disabled', cause: /disabled/ });
      // Metadata stays available for setting the IdP up.
      await t.http.get(`${API}/sso/providers/${providerId}/metadata`).expect(200);
    } finally {
      await t.http.patch(`${API}/sso/providers/${providerId}`).set(bearer(root)).send({ is_enabled: true });
    }
  });
});
