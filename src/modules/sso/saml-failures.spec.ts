import {
  assertionFailure,
  envelopeFailure,
  sha1Failure,
  statusFailure,
  validationFailure,
} from './saml-failures';
import type { AssertionFacts } from './saml-response';
import type { SamlEnvelope } from './saml-response';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const SKEW = 30_000;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

const envelope = (overrides: Partial<SamlEnvelope> = {}): SamlEnvelope => ({
  inResponseTo: '_req',
  destination: null,
  issuer: null,
  status: null,
  signatureAlgorithms: [],
  conditions: { notBefore: at(-60_000), notOnOrAfter: at(300_000) },
  subjectConfirmations: [{ notBefore: null, notOnOrAfter: at(300_000) }],
  ...overrides,
});

describe('SAML failure naming', () => {
  it('names the IdP status: top-level and second-level codes, and the StatusMessage', () => {
    expect(statusFailure(null)).toBeNull();
    expect(
      statusFailure({ code: 'urn:oasis:names:tc:SAML:2.0:status:Success', subCode: null, message: null }),
    ).toBeNull();
    expect(
      statusFailure({
        code: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
        subCode: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
        message: 'Passive\nauthentication not possible',
      }),
    ).toEqual({
      code: 'idp_status',
      message:
        'the identity provider answered Responder/NoPassive (urn:oasis:names:tc:SAML:2.0:status:Responder, urn:oasis:names:tc:SAML:2.0:status:NoPassive): Passive authentication not possible',
    });
    expect(
      statusFailure({ code: 'urn:oasis:names:tc:SAML:2.0:status:Requester', subCode: null, message: null }),
    ).toEqual({
      code: 'idp_status',
      message: 'the identity provider answered Requester (urn:oasis:names:tc:SAML:2.0:status:Requester)',
    });
  });

  it('refuses SHA-1 signature methods and digests unless allowed', () => {
    const sha256 = [
      'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      'http://www.w3.org/2001/04/xmlenc#sha256',
    ];
    expect(sha1Failure(sha256, false)).toBeNull();
    expect(sha1Failure([], false)).toBeNull();
    const rsaSha1 = sha1Failure([sha256[0], 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'], false);
    expect(rsaSha1).toMatchObject({ code: 'sha1_signature', message: expect.stringContaining('#rsa-sha1') });
    expect(sha1Failure([sha256[0], 'http://www.w3.org/2000/09/xmldsig#sha1'], false)?.code).toBe(
      'sha1_signature',
    );
    expect(sha1Failure(['http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1'], false)?.code).toBe(
      'sha1_signature',
    );
    expect(sha1Failure(['http://www.w3.org/2000/09/xmldsig#rsa-sha1'], true)).toBeNull();
  });

  it("names the expiry hidden behind node-saml's 'no valid subject confirmation'", () => {
    const error = new Error(
      'No valid subject confirmation found among those available in the SAML assertion',
    );
    const expired = envelope({ subjectConfirmations: [{ notBefore: null, notOnOrAfter: at(-60_000) }] });
    expect(validationFailure(error, expired, NOW, SKEW)).toEqual({
      code: 'assertion_expired',
      message: `the assertion expired: its SubjectConfirmationData NotOnOrAfter ${at(-60_000)} is past (30 s of clock skew allowed)`,
    });
    // Within the allowed skew it is not the timing; something else is wrong.
    const skewed = envelope({ subjectConfirmations: [{ notBefore: null, notOnOrAfter: at(-10_000) }] });
    expect(validationFailure(error, skewed, NOW, SKEW).code).toBe('subject_confirmation_invalid');
    const early = envelope({ subjectConfirmations: [{ notBefore: at(120_000), notOnOrAfter: at(300_000) }] });
    expect(validationFailure(error, early, NOW, SKEW).code).toBe('assertion_not_yet_valid');
  });

  it("names node-saml's other refusals", () => {
    const name = (message: string, e = envelope()) =>
      validationFailure(new Error(message), e, NOW, SKEW).code;
    expect(name('Invalid signature')).toBe('signature_invalid');
    expect(name('Invalid document signature')).toBe('signature_invalid');
    expect(name('Invalid signature: multiple assertions')).toBe('signature_invalid');
    expect(name('Too many signatures found for this element')).toBe('signature_invalid');
    expect(
      name(
        'SAML assertion expired: clocks skewed too much',
        envelope({ conditions: { notBefore: null, notOnOrAfter: at(-90_000) } }),
      ),
    ).toBe('assertion_expired');
    expect(name('SAML assertion not yet valid')).toBe('assertion_not_yet_valid');
    expect(name('SAML assertion audience mismatch. Expected: a Received: b')).toBe('audience_mismatch');
    expect(name('SAML assertion has no AudienceRestriction')).toBe('audience_mismatch');
    expect(name('InResponseTo is not valid')).toBe('in_response_to_mismatch');
    expect(name('InResponseTo does not match subjectInResponseTo')).toBe('in_response_to_mismatch');
    expect(name('No decryption key for encrypted SAML response')).toBe('encrypted_assertion');
    expect(name('Missing SAML assertion')).toBe('no_assertion');
    expect(
      validationFailure(new Error('Unable to process multiple conditions'), envelope(), NOW, SKEW),
    ).toEqual({
      code: 'invalid_response',
      message: 'the response is invalid (Unable to process multiple conditions)',
    });
  });

  it('names the Conditions expiry with its timestamp', () => {
    const e = envelope({ conditions: { notBefore: null, notOnOrAfter: at(-90_000) } });
    expect(
      validationFailure(new Error('SAML assertion expired: clocks skewed too much'), e, NOW, SKEW).message,
    ).toBe(
      `the assertion expired: its Conditions NotOnOrAfter ${at(-90_000)} is past (30 s of clock skew allowed)`,
    );
  });
});

describe('SAML response and assertion checks', () => {
  const ACS = 'https://verity.example/api/v1.0/sso/callback';
  const IDP = 'https://idp.example/saml';
  const expected = { acsUrl: ACS, allowSha1: false, idpEntityId: IDP };
  const facts = (overrides: Partial<AssertionFacts> = {}): AssertionFacts => ({
    id: '_a1',
    issuer: IDP,
    recipients: [ACS],
    notOnOrAfter: null,
    email: 'grace@example.com',
    firstName: 'Grace',
    lastName: 'Hopper',
    ...overrides,
  });

  it('checks the Destination, then the IdP status, then SHA-1', () => {
    expect(envelopeFailure(envelope({ destination: ACS }), expected)).toBeNull();
    expect(envelopeFailure(envelope(), expected)).toBeNull();
    expect(
      envelopeFailure(envelope({ destination: 'https://evil.example/acs\nforged line' }), expected),
    ).toEqual({
      code: 'wrong_destination',
      message: `wrong Destination https://evil.example/acs forged line (expected ${ACS})`,
    });
    const refused = envelope({
      status: { code: 'urn:oasis:names:tc:SAML:2.0:status:Responder', subCode: null, message: null },
      signatureAlgorithms: ['http://www.w3.org/2000/09/xmldsig#rsa-sha1'],
    });
    expect(envelopeFailure(refused, expected)?.code).toBe('idp_status');
    expect(envelopeFailure({ ...refused, status: null }, expected)?.code).toBe('sha1_signature');
    expect(envelopeFailure({ ...refused, status: null }, { ...expected, allowSha1: true })).toBeNull();
  });

  it('checks the Issuer only when idp_entity_id is set, then Recipient, ID and email', () => {
    expect(assertionFailure(facts(), envelope({ issuer: IDP }), expected)).toBeNull();
    expect(assertionFailure(facts(), envelope({ issuer: 'https://other' }), expected)).toEqual({
      code: 'wrong_issuer',
      message: `wrong Issuer https://other (expected saml.idp_entity_id ${IDP})`,
    });
    expect(assertionFailure(facts({ issuer: 'https://other' }), envelope(), expected)?.code).toBe(
      'wrong_issuer',
    );
    expect(assertionFailure(facts({ issuer: null }), envelope(), expected)?.code).toBe('wrong_issuer');
    expect(
      assertionFailure(facts({ issuer: 'https://other' }), envelope(), { ...expected, idpEntityId: null }),
    ).toBeNull();
    expect(assertionFailure(facts({ recipients: ['https://evil'] }), envelope(), expected)?.code).toBe(
      'wrong_recipient',
    );
    expect(assertionFailure(facts({ id: null }), envelope(), expected)?.code).toBe('no_assertion_id');
    expect(assertionFailure(facts({ email: '' }), envelope(), expected)?.code).toBe('no_email');
  });
});
