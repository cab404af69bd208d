import { firstString, readEnvelope } from './saml-response';

const b64 = (xml: string) => Buffer.from(xml).toString('base64');

describe('SAML response envelope', () => {
  it('reads InResponseTo and Destination of a Response, whatever its prefix', () => {
    const xml =
      '<p:Response xmlns:p="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r" InResponseTo="_req1" Destination="https://sp/acs"/>';
    expect(readEnvelope(b64(xml))).toEqual({ inResponseTo: '_req1', destination: 'https://sp/acs' });
    expect(readEnvelope(b64('<samlp:Response xmlns:samlp="urn:x" ID="_r"/>'))).toEqual({
      inResponseTo: null,
      destination: null,
    });
  });

  it('refuses what is not a Response document', () => {
    expect(readEnvelope(b64('not xml at all'))).toBeNull();
    expect(readEnvelope(b64('<samlp:AuthnRequest xmlns:samlp="urn:x" ID="_a"/>'))).toBeNull();
    expect(readEnvelope('')).toBeNull();
  });

  it('takes the first non-blank value of the first attribute present', () => {
    expect(firstString({ mail: ['  a@b.c ', 'x@y.z'], email: '' }, ['email', 'mail'])).toBe('a@b.c');
    expect(firstString({ email: 42 }, ['email'])).toBeUndefined();
  });
});
