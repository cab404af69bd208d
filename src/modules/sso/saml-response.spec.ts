import { firstString, personFromAttributes, readEnvelope } from './saml-response';

const b64 = (xml: string) => Buffer.from(xml).toString('base64');
const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

describe('SAML response envelope', () => {
  it('reads InResponseTo and Destination of a Response, whatever its prefix', () => {
    const xml =
      '<p:Response xmlns:p="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" InResponseTo="_req1" Destination="https://sp/acs"/>';
    expect(readEnvelope(b64(xml))).toMatchObject({ inResponseTo: '_req1', destination: 'https://sp/acs' });
    expect(readEnvelope(b64('<samlp:Response xmlns:samlp="urn:x" ID="_r"/>'))).toMatchObject({
      inResponseTo: null,
      destination: null,
      status: null,
    });
  });

  it('refuses what is not a Response document', () => {
    expect(readEnvelope(b64('not xml at all'))).toBeNull();
    expect(readEnvelope(b64('<samlp:AuthnRequest xmlns:samlp="urn:x" ID="_a"/>'))).toBeNull();
    expect(readEnvelope('')).toBeNull();
  });

  it('reads the status codes, the message, the issuer, the algorithms and the validity windows', () => {
    const xml =
      '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" ID="_r">' +
      '<saml:Issuer> https://idp.example </saml:Issuer>' +
      '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder">' +
      '<samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:NoPassive"/></samlp:StatusCode>' +
      '<samlp:StatusMessage>Passive authentication not possible</samlp:StatusMessage></samlp:Status>' +
      '<saml:Assertion ID="_a"><ds:Signature><ds:SignedInfo>' +
      '<ds:SignatureMethod Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"/>' +
      '<ds:Reference><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/></ds:Reference>' +
      '</ds:SignedInfo></ds:Signature>' +
      '<saml:Subject><saml:SubjectConfirmation><saml:SubjectConfirmationData NotOnOrAfter="2026-01-01T00:05:00Z"/>' +
      '</saml:SubjectConfirmation></saml:Subject>' +
      '<saml:Conditions NotBefore="2026-01-01T00:00:00Z" NotOnOrAfter="2026-01-01T00:10:00Z"/>' +
      '</saml:Assertion></samlp:Response>';
    expect(readEnvelope(b64(xml))).toEqual({
      inResponseTo: null,
      destination: null,
      issuer: 'https://idp.example',
      status: {
        code: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
        subCode: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
        message: 'Passive authentication not possible',
      },
      signatureAlgorithms: [
        'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
        'http://www.w3.org/2001/04/xmlenc#sha256',
      ],
      conditions: { notBefore: '2026-01-01T00:00:00Z', notOnOrAfter: '2026-01-01T00:10:00Z' },
      subjectConfirmations: [{ notBefore: null, notOnOrAfter: '2026-01-01T00:05:00Z' }],
    });
  });

  it('takes the first non-blank value of the first attribute present', () => {
    expect(firstString({ mail: ['  a@b.c ', 'x@y.z'], email: '' }, ['email', 'mail'])).toBe('a@b.c');
    expect(firstString({ email: 42 }, ['email'])).toBeUndefined();
  });
});

describe('SAML attribute mapping', () => {
  it('understands friendly names', () => {
    expect(personFromAttributes({ mail: 'Grace@Example.com', givenName: 'Grace', sn: 'Hopper' })).toEqual({
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expect(personFromAttributes({ email: 'a@b.co', firstName: 'Ada', lastName: 'Lovelace' })).toEqual({
      email: 'a@b.co',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
  });

  it('understands the X.500 and eduPerson OIDs (urn:oid NameFormat) and their urn:mace forms', () => {
    expect(
      personFromAttributes({
        'urn:oid:0.9.2342.19200300.100.1.3': ['grace@example.com'],
        'urn:oid:2.5.4.42': ['Grace'],
        'urn:oid:2.5.4.4': ['Hopper'],
      }),
    ).toEqual({ email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' });
    expect(
      personFromAttributes({
        'urn:mace:dir:attribute-def:mail': 'ada@example.com',
        'urn:mace:dir:attribute-def:givenName': 'Ada',
        'urn:mace:dir:attribute-def:sn': 'Lovelace',
      }),
    ).toEqual({ email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
  });

  it('understands the Azure AD and ADFS claim URIs', () => {
    expect(
      personFromAttributes({
        [`${CLAIMS}/emailaddress`]: 'grace@example.com',
        [`${CLAIMS}/givenname`]: 'Grace',
        [`${CLAIMS}/surname`]: 'Hopper',
        [`${CLAIMS}/name`]: 'grace@corp.example.com',
      }),
    ).toEqual({ email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' });
    // Azure's name claim is the user principal name: the email when no email claim is sent.
    expect(
      personFromAttributes({
        [`${CLAIMS}/name`]: 'Grace@Corp.Example.com',
        'http://schemas.microsoft.com/identity/claims/displayname': 'Grace Hopper',
      }),
    ).toEqual({ email: 'grace@corp.example.com', firstName: 'Grace', lastName: 'Hopper' });
    // ADFS often sends a display name there instead.
    expect(personFromAttributes({ [`${CLAIMS}/name`]: 'Ada King Lovelace' })).toEqual({
      email: '',
      firstName: 'Ada',
      lastName: 'King Lovelace',
    });
  });

  it('splits a display name only when neither given name nor surname is sent', () => {
    expect(personFromAttributes({ 'urn:oid:2.16.840.1.113730.3.1.241': '  Grace   Hopper ' })).toEqual({
      email: '',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expect(personFromAttributes({ displayName: 'Grace Brewster Hopper', givenName: 'Grace' })).toEqual({
      email: '',
      firstName: 'Grace',
      lastName: '',
    });
    expect(personFromAttributes({ displayName: 'Cher' })).toEqual({
      email: '',
      firstName: 'Cher',
      lastName: '',
    });
  });

  it('prefers an email attribute, then an emailAddress NameID; never another NameID format', () => {
    expect(
      personFromAttributes(
        { mail: 'attr@example.com' },
        { value: 'nameid@example.com', format: EMAIL_NAME_ID },
      ),
    ).toMatchObject({ email: 'attr@example.com' });
    expect(personFromAttributes({}, { value: ' NameID@Example.com ', format: EMAIL_NAME_ID })).toMatchObject({
      email: 'nameid@example.com',
    });
    expect(
      personFromAttributes(
        {},
        { value: 'looks@like.email', format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' },
      ),
    ).toMatchObject({ email: '' });
    expect(personFromAttributes({})).toEqual({ email: '', firstName: '', lastName: '' });
  });
});
