import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import puppeteer, { Browser } from 'puppeteer-core';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, rootUser, TestUser } from '../support/factories';
import { newIdpKeys } from '../support/saml-idp';
import { SimpleSamlIdp, spFromMetadata, URI_NAME_FORMAT } from '../support/simplesamlphp-idp';

// Interop with a third-party IdP: SimpleSAMLphp 1.19 from Debian, its login form
// filled in headless Chromium (Debian's package; .ci/run installs both). Named
// postgres-only so that the embedded run does not drive the browser twice:
// the SAML exchange does not depend on the database.
const CHROMIUM = '/usr/bin/chromium';
const API = '/api/v1.0';
// startApp's PUBLIC_BASE_URL; Chromium resolves its host to the app's loopback port.
const PUBLIC_HOST = 'app.verity.test';
const ACS = `http://${PUBLIC_HOST}${API}/sso/callback`;

describe('SSO with SimpleSAMLphp (a real SAML IdP, through its login form)', () => {
  let t: TestApp;
  let root: TestUser;
  let idp: SimpleSamlIdp;
  let browser: Browser;
  const run = randomUUID().slice(0, 8);
  const person = (label: string) => ({
    username: `${label}-${run}`,
    password: `pw-${randomUUID()}`,
    email: `${label}-${run}@simplesaml.example.test`,
  });
  const grace = person('grace');
  const katherine = person('katherine');
  const providers: Record<'default' | 'uri' | 'sha1' | 'wrongCert', { id: string; entityId: string }> = {
    default: { id: '', entityId: `https://verity.example.test/sp/default-${run}` },
    uri: { id: '', entityId: `https://verity.example.test/sp/uri-${run}` },
    sha1: { id: '', entityId: `https://verity.example.test/sp/sha1-${run}` },
    wrongCert: { id: '', entityId: `https://verity.example.test/sp/wrong-cert-${run}` },
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium".`);
    }
    idp = await SimpleSamlIdp.prepare();
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    root = await rootUser(t.http);
    const wrongKeys = newIdpKeys('Not the IdP');
    for (const [name, provider] of Object.entries(providers)) {
      const res = await t.http
        .post(`${API}/sso/providers`)
        .set(bearer(root))
        .send({
          name: `SimpleSAMLphp ${name}`,
          protocol: 'saml',
          jit_provisioning: true,
          saml: {
            entry_point: idp.ssoUrl,
            issuer: provider.entityId,
            idp_certificate: name === 'wrongCert' ? wrongKeys.certificate : idp.certificate,
            idp_entity_id: idp.entityId,
            sign_authn_requests: true,
          },
        });
      expect(res.status).toBe(201);
      provider.id = res.body.id;
    }
    // SimpleSAMLphp knows each SP from its published metadata (signing certificate: it checks
    // our AuthnRequests' signatures; NameID format: it would try to make one of that format).
    const fromMetadata = async (name: string, p: { id: string }) => ({
      ...spFromMetadata((await t.http.get(`${API}/sso/providers/${p.id}/metadata`).expect(200)).text),
      uriAttributeNames: name === 'uri',
      signatureAlgorithm: name === 'sha1' ? 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' : undefined,
    });
    const sps = await Promise.all(Object.entries(providers).map(([name, p]) => fromMetadata(name, p)));
    expect(sps[0]).toMatchObject({
      entityId: providers.default.entityId,
      acsUrl: ACS,
      nameIdFormat: undefined,
    });
    expect(sps[0].signingCertificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    await idp.start(
      sps,
      [grace, katherine].map((p, i) => ({
        username: p.username,
        password: p.password,
        attributes: {
          uid: [p.username],
          mail: [p.email],
          givenName: [['Grace', 'Katherine'][i]],
          sn: [['Hopper', 'Johnson'][i]],
        },
      })),
    );
    const appPort = new URL(t.baseUrl).port;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1:${appPort}`,
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await idp?.close();
    await t?.close();
  });

  /**
   * SP-initiated login in a fresh browser profile: our login URL, SimpleSAMLphp's
   * form, then its auto-submitted POST to our ACS. Answers that POST's status,
   * its Location, and the SAMLResponse it carried.
   */
  async function browserLogin(providerId: string, who: { username: string; password: string }) {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://${PUBLIC_HOST}${API}/sso/login/${providerId}`);
      await page.waitForSelector('#username', { timeout: 20_000 });
      expect(page.url().startsWith(`${idp.baseUrl}/module.php/core/loginuserpass.php`)).toBe(true);
      await page.type('#username', who.username);
      await page.type('#password', who.password);
      const callback = page.waitForResponse((r) => r.url() === ACS && r.request().method() === 'POST', {
        timeout: 20_000,
      });
      await page.keyboard.press('Enter');
      const response = await callback;
      const samlResponse = new URLSearchParams(response.request().postData() ?? '').get('SAMLResponse') ?? '';
      return {
        status: response.status(),
        location: response.headers().location,
        xml: Buffer.from(samlResponse, 'base64').toString('utf8'),
      };
    } finally {
      await context.close();
    }
  }

  async function lastFailure(providerId: string) {
    const [entry] = await dbQuery<{ details: { reason: string; cause: string } }>(
      `SELECT details FROM audit_log WHERE action = 'sso.login_failed' AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [providerId],
    );
    return entry.details;
  }

  async function me(location: string) {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(`http://${PUBLIC_HOST}/sso/complete`);
    const tokens = await t.http
      .post(`${API}/sso/exchange`)
      .send({ code: url.searchParams.get('code') })
      .expect(200);
    const res = await t.http
      .get(`${API}/auth/me`)
      .set('Authorization', `Bearer ${tokens.body.access_token}`)
      .expect(200);
    return res.body as Record<string, unknown>;
  }

  // SimpleSAMLphp's level names (syslog's): ERR, WARNING, …; NOTICE and below are routine.
  const idpComplaints = () =>
    idp.log.split('\n').filter((line) => /SimpleSAMLphp (EMERG|ALERT|CRIT|ERR|WARNING) /.test(line));

  it("signs in with SimpleSAMLphp's default signing and friendly attribute names", async () => {
    const result = await browserLogin(providers.default.id, grace);
    expect(result.status).toBe(303);
    expect(await me(result.location)).toMatchObject({
      email: grace.email,
      first_name: 'Grace',
      last_name: 'Hopper',
    });
    // A stock SimpleSAMLphp signs with RSA-SHA256 and a SHA-256 digest, and names attributes plainly.
    expect(result.xml).toContain('Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"');
    expect(result.xml).not.toMatch(/#(rsa-)?sha1"/);
    expect(result.xml).toMatch(/<saml:Attribute Name="givenName"/);
    // Our metadata lists no NameID format and the AuthnRequest asks for `unspecified`: it sends a transient
    // NameID without complaint (an emailAddress one made it log an error and a warning on every login).
    expect(idpComplaints()).toEqual([]);
  }, 60_000);

  it('signs in with URI attribute names (urn:oid NameFormat)', async () => {
    const result = await browserLogin(providers.uri.id, katherine);
    expect(result.status).toBe(303);
    expect(result.xml).toMatch(
      new RegExp(`<saml:Attribute Name="urn:oid:2\\.5\\.4\\.42" NameFormat="${URI_NAME_FORMAT}"`),
    );
    expect(result.xml).not.toMatch(/Name="givenName"/);
    expect(await me(result.location)).toMatchObject({
      email: katherine.email,
      first_name: 'Katherine',
      last_name: 'Johnson',
    });
    expect(idpComplaints()).toEqual([]);
  }, 60_000);

  it('refuses RSA-SHA1 from an IdP set to sign with it, unless the provider allows SHA-1', async () => {
    const refused = await browserLogin(providers.sha1.id, grace);
    expect(refused.status).toBe(401);
    expect(refused.xml).toContain('Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"');
    expect((await lastFailure(providers.sha1.id)).reason).toBe('sha1_signature');

    await t.http
      .patch(`${API}/sso/providers/${providers.sha1.id}`)
      .set(bearer(root))
      .send({ saml: { allow_sha1_signatures: true } })
      .expect(200);
    const allowed = await browserLogin(providers.sha1.id, grace);
    expect(allowed.status).toBe(303);
    expect(await me(allowed.location)).toMatchObject({ email: grace.email });
  }, 60_000);

  it('refuses the login when the SP holds the wrong IdP certificate', async () => {
    const result = await browserLogin(providers.wrongCert.id, grace);
    expect(result.status).toBe(401);
    expect(await lastFailure(providers.wrongCert.id)).toMatchObject({ reason: 'signature_invalid' });
  }, 60_000);
});
