import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { generateSpKeyPair, SpKeyPair } from '../../src/modules/sso/sp-keypair';

/** A test identity provider's signing key and self-signed certificate. */
export const newIdpKeys = (name = 'Verity test IdP'): SpKeyPair => generateSpKeyPair(name);

export const IDP_ENTITY_ID = 'https://idp.example.test/saml';
const ISO = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

export interface AssertionOptions {
  inResponseTo: string;
  /** The ACS URL: Destination and Recipient. */
  acsUrl: string;
  /** The SP entity ID the assertion is addressed to. */
  audience: string;
  email: string;
  assertionId?: string;
  destination?: string | null;
  recipient?: string;
  /** NotOnOrAfter of the conditions and of the subject confirmation, from now (default +5 minutes). */
  validForMs?: number;
  /** NotOnOrAfter of the conditions alone, when it should differ. */
  conditionsValidForMs?: number;
  /** NotBefore of the conditions, from now (default 10 minutes ago). */
  validFromMs?: number;
  givenName?: string;
  /** Replaces the default attributes (email, givenName, sn by friendly name). */
  attributes?: SamlAttribute[];
  /** The NameID's Format (its value is the email), default emailAddress. */
  nameIdFormat?: string;
  /** The assertion's Issuer (and the response's), default IDP_ENTITY_ID. */
  issuer?: string;
}

export interface SamlAttribute {
  name: string;
  values: string[];
  /** Such as `urn:oasis:names:tc:SAML:2.0:attrname-format:uri`. */
  nameFormat?: string;
}

export const URI_NAME_FORMAT = 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri';

const attributeXml = (a: SamlAttribute) =>
  `<saml:Attribute Name="${a.name}"${a.nameFormat ? ` NameFormat="${a.nameFormat}"` : ''}>` +
  a.values.map((v) => `<saml:AttributeValue>${v}</saml:AttributeValue>`).join('') +
  `</saml:Attribute>`;

/** A SAML 2.0 Response with one assertion, as an IdP would send it (unsigned). */
export function samlResponseXml(o: AssertionOptions): string {
  const until = ISO(o.validForMs ?? 5 * 60 * 1000);
  const conditionsUntil = o.conditionsValidForMs === undefined ? until : ISO(o.conditionsValidForMs);
  const notBefore = ISO(o.validFromMs ?? Math.min(0, o.validForMs ?? 0) - 10 * 60 * 1000);
  const assertionId = o.assertionId ?? `_a${randomUUID().replace(/-/g, '')}`;
  const destination = o.destination === undefined ? o.acsUrl : o.destination;
  const issuer = o.issuer ?? IDP_ENTITY_ID;
  const attributes = o.attributes ?? [
    { name: 'email', values: [o.email] },
    { name: 'givenName', values: [o.givenName ?? 'Grace'] },
    { name: 'sn', values: ['Hopper'] },
  ];
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
    `ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${ISO(0)}" InResponseTo="${o.inResponseTo}"` +
    (destination ? ` Destination="${destination}"` : '') +
    `><saml:Issuer>${issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${ISO(0)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${o.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'}">${o.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData InResponseTo="${o.inResponseTo}" NotOnOrAfter="${until}" Recipient="${o.recipient ?? o.acsUrl}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${conditionsUntil}">` +
    `<saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${ISO(0)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attributes.map(attributeXml).join('')}</saml:AttributeStatement>` +
    `</saml:Assertion></samlp:Response>`
  );
}

/** A Response without an assertion: the IdP refusing the request, as SimpleSAMLphp or ADFS do. */
export function samlStatusResponseXml(o: {
  inResponseTo: string;
  acsUrl: string;
  code: string;
  subCode?: string;
  message?: string;
}): string {
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
    `ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${ISO(0)}" InResponseTo="${o.inResponseTo}" Destination="${o.acsUrl}">` +
    `<saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${o.code}">` +
    (o.subCode ? `<samlp:StatusCode Value="${o.subCode}"/>` : '') +
    `</samlp:StatusCode>` +
    (o.message ? `<samlp:StatusMessage>${o.message}</samlp:StatusMessage>` : '') +
    `</samlp:Status></samlp:Response>`
  );
}

/**
 * Signs the assertion (enveloped, exclusive c14n), as IdPs do: RSA-SHA256 with
 * a SHA-256 digest unless told to use the legacy SHA-1 for either.
 */
export function signAssertion(
  xml: string,
  keys: SpKeyPair,
  legacy: { sha1Signature?: boolean; sha1Digest?: boolean } = {},
): string {
  const sig = new SignedXml({
    privateKey: keys.privateKey,
    publicCert: keys.certificate,
    signatureAlgorithm: legacy.sha1Signature
      ? 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'
      : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
    digestAlgorithm: legacy.sha1Digest
      ? 'http://www.w3.org/2000/09/xmldsig#sha1'
      : 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    location: {
      reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']",
      action: 'after',
    },
  });
  return sig.getSignedXml();
}

export const encodeSamlResponse = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

/** The AuthnRequest carried by an HTTP-Redirect binding URL (deflated, base64), and its query. */
export function readAuthnRequest(location: string): { xml: string; id: string; params: URLSearchParams } {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
  const id = xml.match(/\sID="([^"]+)"/)![1];
  return { xml, id, params: url.searchParams };
}
