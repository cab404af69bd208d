import type { Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';

// Friendly names, then the X.500/eduPerson OIDs (SAML2 URI NameFormat), their
// SAML 1 `urn:mace` forms, and the WS-Federation claim URIs Azure AD and ADFS send.
export const SAML_EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailAddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'urn:mace:dir:attribute-def:mail',
  `${CLAIMS}/emailaddress`,
];
export const SAML_GIVEN_NAME_ATTRIBUTES = [
  'givenName',
  'firstName',
  'urn:oid:2.5.4.42',
  'urn:mace:dir:attribute-def:givenName',
  `${CLAIMS}/givenname`,
];
export const SAML_SURNAME_ATTRIBUTES = [
  'sn',
  'surname',
  'lastName',
  'urn:oid:2.5.4.4',
  'urn:mace:dir:attribute-def:sn',
  `${CLAIMS}/surname`,
];
export const SAML_DISPLAY_NAME_ATTRIBUTES = [
  'displayName',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'urn:mace:dir:attribute-def:displayName',
  'http://schemas.microsoft.com/identity/claims/displayname',
];
// Azure AD sends the user principal name here (an address), ADFS often the display name.
const NAME_CLAIM = `${CLAIMS}/name`;
export const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type XmlJs = Record<string, unknown> & { $?: Record<string, string> };

/** The first non-blank string among these claims or attributes (a list counts by its first value). */
export function firstString(record: Record<string, unknown>, names: string[]): string | undefined {
  for (const name of names) {
    const value = record[name];
    const first = Array.isArray(value) ? (value[0] as unknown) : value;
    if (typeof first === 'string' && first.trim()) return first.trim();
  }
  return undefined;
}

export interface SamlPerson {
  /** Lowercased; '' when the assertion names none. */
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * Email and names from an assertion's attributes (by any of the names above)
 * and its NameID. Without given name and surname, a display name is split at
 * its first space: the first word is the first name, the rest the last name.
 */
export function personFromAttributes(
  attributes: Record<string, unknown>,
  nameId?: { value?: string; format?: string },
): SamlPerson {
  const nameClaim = firstString(attributes, [NAME_CLAIM]);
  const nameClaimIsAddress = !!nameClaim && EMAIL_ADDRESS.test(nameClaim);
  const email =
    firstString(attributes, SAML_EMAIL_ATTRIBUTES) ??
    (nameId?.format?.endsWith(':emailAddress') ? nameId.value?.trim() : undefined) ??
    (nameClaimIsAddress ? nameClaim : undefined) ??
    '';
  const display =
    firstString(attributes, SAML_DISPLAY_NAME_ATTRIBUTES) ?? (nameClaimIsAddress ? undefined : nameClaim);
  const given = firstString(attributes, SAML_GIVEN_NAME_ATTRIBUTES);
  const surname = firstString(attributes, SAML_SURNAME_ATTRIBUTES);
  const [head, ...rest] = given === undefined && surname === undefined ? (display?.split(/\s+/) ?? []) : [];
  return {
    email: email.toLowerCase(),
    firstName: given ?? head ?? '',
    lastName: surname ?? rest.join(' '),
  };
}

export interface SamlStatus {
  code: string;
  /** The second-level status code, such as `urn:oasis:names:tc:SAML:2.0:status:NoPassive`. */
  subCode: string | null;
  message: string | null;
}

export interface Validity {
  notBefore: string | null;
  notOnOrAfter: string | null;
}

/**
 * What is read from a Response before anything is trusted: what finds the
 * pending request and its provider, the IdP's status, the algorithms of its
 * signatures (refused before verification when too weak) and the timing of
 * its assertion (to name why node-saml found no valid subject confirmation).
 */
export interface SamlEnvelope {
  inResponseTo: string | null;
  destination: string | null;
  /** The Response's own Issuer, when it names one. */
  issuer: string | null;
  status: SamlStatus | null;
  /** SignatureMethod and DigestMethod algorithm URIs of every XML signature in the document. */
  signatureAlgorithms: string[];
  /** The assertion's Conditions (null without an assertion or conditions). */
  conditions: Validity | null;
  /** The assertion's subject confirmations (empty without an assertion). */
  subjectConfirmations: Validity[];
}

const childrenNamed = (parent: Element, ns: string, name: string): Element[] =>
  Array.from(parent.childNodes).filter(
    (n): n is Element =>
      n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === name,
  );

const attr = (el: Element | undefined, name: string): string | null => el?.getAttribute(name) || null;

/** A Response document's envelope; null when the text is not a SAML Response document. */
export function readEnvelope(samlResponse: string): SamlEnvelope | null {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const errors: string[] = [];
  let root: Element | null;
  try {
    root = new DOMParser({
      errorHandler: {
        warning: () => undefined,
        error: (m) => errors.push(m),
        fatalError: (m) => errors.push(m),
      },
    }).parseFromString(xml, 'text/xml').documentElement;
  } catch {
    return null;
  }
  if (errors.length || !root || root.localName !== 'Response') return null;
  const statusEl = childrenNamed(root, SAMLP, 'Status')[0];
  const codeEl = statusEl && childrenNamed(statusEl, SAMLP, 'StatusCode')[0];
  const subCodeEl = codeEl && childrenNamed(codeEl, SAMLP, 'StatusCode')[0];
  const messageEl = statusEl && childrenNamed(statusEl, SAMLP, 'StatusMessage')[0];
  const assertion = childrenNamed(root, SAML, 'Assertion')[0];
  const subject = assertion && childrenNamed(assertion, SAML, 'Subject')[0];
  const confirmations = subject ? childrenNamed(subject, SAML, 'SubjectConfirmation') : [];
  const conditions = assertion && childrenNamed(assertion, SAML, 'Conditions')[0];
  const algorithms = ['SignatureMethod', 'DigestMethod'].flatMap((name) =>
    Array.from(root.getElementsByTagNameNS(DSIG, name)).map((el) => el.getAttribute('Algorithm') ?? ''),
  );
  return {
    inResponseTo: attr(root, 'InResponseTo'),
    destination: attr(root, 'Destination'),
    issuer: childrenNamed(root, SAML, 'Issuer')[0]?.textContent?.trim() || null,
    status: codeEl
      ? {
          code: attr(codeEl, 'Value') ?? '',
          subCode: attr(subCodeEl, 'Value'),
          message: messageEl?.textContent?.trim() || null,
        }
      : null,
    signatureAlgorithms: algorithms,
    conditions: conditions
      ? { notBefore: attr(conditions, 'NotBefore'), notOnOrAfter: attr(conditions, 'NotOnOrAfter') }
      : null,
    subjectConfirmations: confirmations.map((c) => {
      const data = childrenNamed(c, SAML, 'SubjectConfirmationData')[0];
      return { notBefore: attr(data, 'NotBefore'), notOnOrAfter: attr(data, 'NotOnOrAfter') };
    }),
  };
}

export interface AssertionFacts extends SamlPerson {
  id: string | null;
  /** The assertion's Issuer. */
  issuer: string | null;
  /** Recipient of every SubjectConfirmationData. */
  recipients: string[];
  notOnOrAfter: string | null;
}

/** What the login needs from an assertion node-saml has verified (its signed content, as node-saml parsed it). */
export function assertionFacts(profile: Profile): AssertionFacts | null {
  if (!profile.getAssertion) return null;
  const assertion = (profile.getAssertion() as { Assertion: XmlJs }).Assertion;
  const subject = (assertion.Subject as XmlJs[] | undefined)?.[0];
  const recipients = ((subject?.SubjectConfirmation as XmlJs[] | undefined) ?? [])
    .map((c) => (c.SubjectConfirmationData as XmlJs[] | undefined)?.[0]?.$?.Recipient)
    .filter((r): r is string => typeof r === 'string');
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  return {
    id: assertion.$?.ID ?? null,
    issuer: profile.issuer?.trim() || null,
    recipients,
    notOnOrAfter: (assertion.Conditions as XmlJs[] | undefined)?.[0]?.$?.NotOnOrAfter ?? null,
    ...personFromAttributes(attributes, { value: profile.nameID, format: profile.nameIDFormat }),
  };
}
