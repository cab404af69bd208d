import type { Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';

const SAML_EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];
const SAML_GIVEN_NAME = [
  'givenName',
  'firstName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
];
const SAML_SURNAME = [
  'sn',
  'surname',
  'lastName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
];

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

/**
 * The Response element's InResponseTo and Destination, read before anything
 * is trusted (to find the pending request and its provider); null when the
 * text is not a SAML Response document.
 */
export function readEnvelope(
  samlResponse: string,
): { inResponseTo: string | null; destination: string | null } | null {
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
  return {
    inResponseTo: root.getAttribute('InResponseTo') || null,
    destination: root.getAttribute('Destination') || null,
  };
}

export interface AssertionFacts {
  id: string | null;
  /** Recipient of every SubjectConfirmationData. */
  recipients: string[];
  notOnOrAfter: string | null;
  /** Lowercased; '' when the assertion names none. */
  email: string;
  firstName: string;
  lastName: string;
}

/** What the login needs from an assertion node-saml has verified (its signed content, as node-saml parsed it). */
export function assertionFacts(profile: Profile): AssertionFacts | null {
  if (!profile.getAssertion) return null;
  const assertion = (profile.getAssertion() as { Assertion: XmlJs }).Assertion;
  const subject = (assertion.Subject as XmlJs[] | undefined)?.[0];
  const recipients = ((subject?.SubjectConfirmation as XmlJs[] | undefined) ?? [])
    .map((c) => (c.SubjectConfirmationData as XmlJs[] | undefined)?.[0]?.$?.Recipient)
    .filter((r): r is string => typeof r === 'string');
  const record = profile as unknown as Record<string, unknown>;
  const email =
    firstString(record, SAML_EMAIL_ATTRIBUTES) ??
    (profile.nameIDFormat?.endsWith(':emailAddress') ? profile.nameID : '');
  return {
    id: assertion.$?.ID ?? null,
    recipients,
    notOnOrAfter: (assertion.Conditions as XmlJs[] | undefined)?.[0]?.$?.NotOnOrAfter ?? null,
    email: email.trim().toLowerCase(),
    firstName: firstString(record, SAML_GIVEN_NAME) ?? '',
    lastName: firstString(record, SAML_SURNAME) ?? '',
  };
}
