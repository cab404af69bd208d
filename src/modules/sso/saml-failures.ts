import { AssertionFacts, EMAIL_ADDRESS, SamlEnvelope, SamlStatus, Validity } from './saml-response';

/** Why a SAML login was refused: a stable code for the audit log, and a sentence for the admin. */
export interface SamlFailure {
  code: SamlFailureCode;
  message: string;
}

export type SamlFailureCode =
  // Before anything is verified
  | 'malformed_response'
  | 'unsolicited_response'
  | 'unknown_request'
  | 'request_expired'
  | 'wrong_destination'
  | 'idp_status'
  | 'sha1_signature'
  // What node-saml refuses
  | 'signature_invalid'
  | 'assertion_expired'
  | 'assertion_not_yet_valid'
  | 'audience_mismatch'
  | 'in_response_to_mismatch'
  | 'subject_confirmation_invalid'
  | 'encrypted_assertion'
  | 'no_assertion'
  | 'invalid_response'
  // The verified assertion
  | 'wrong_issuer'
  | 'wrong_recipient'
  | 'no_assertion_id'
  | 'no_email'
  | 'replayed_response'
  | 'replayed_assertion';

/** What a response must match, from the provider's settings and our ACS URL. */
export interface SamlExpectations {
  /** The ACS URL: the Destination (when present) and a Recipient. */
  acsUrl: string;
  allowSha1: boolean;
  /** `saml.idp_entity_id`: when set, the only Issuer accepted. */
  idpEntityId: string | null;
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
// SHA-1 signature methods (rsa-, dsa-, hmac-, ecdsa-sha1) and the SHA-1 digest.
const SHA1 = /[#-]sha1$/i;

const lastSegment = (uri: string) => uri.slice(uri.lastIndexOf(':') + 1) || uri;
/** Untrusted text for a log line: one line, bounded. */
export const oneLine = (text: string, max: number) =>
  text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, max);

/** A status other than Success, named by its codes (top-level and second-level) and the IdP's StatusMessage. */
export function statusFailure(status: SamlStatus | null): SamlFailure | null {
  if (!status || status.code === SUCCESS) return null;
  const codes = [status.code, status.subCode].filter((c): c is string => !!c).map((c) => oneLine(c, 200));
  const named = codes.map(lastSegment).join('/') || 'an empty status code';
  const message = status.message ? `: ${oneLine(status.message, 300)}` : '';
  return {
    code: 'idp_status',
    message: `the identity provider answered ${named} (${codes.join(', ') || 'no StatusCode value'})${message}`,
  };
}

/** SHA-1 among a document's signature and digest algorithms, unless the provider allows it. */
export function sha1Failure(algorithms: string[], allowSha1: boolean): SamlFailure | null {
  const weak = [...new Set(algorithms.filter((a) => SHA1.test(a)))];
  if (allowSha1 || !weak.length) return null;
  return {
    code: 'sha1_signature',
    message: `the response is signed with SHA-1 (${weak.join(', ')}), refused unless the provider sets saml.allow_sha1_signatures`,
  };
}

function timingFailure(
  validity: Validity[],
  nowMs: number,
  skewMs: number,
  what: string,
): SamlFailure | null {
  const expired = validity.find((v) => v.notOnOrAfter && Date.parse(v.notOnOrAfter) <= nowMs - skewMs);
  if (expired) {
    return {
      code: 'assertion_expired',
      message: `the assertion expired: its ${what} NotOnOrAfter ${expired.notOnOrAfter} is past (${skewMs / 1000} s of clock skew allowed)`,
    };
  }
  const early = validity.find((v) => v.notBefore && Date.parse(v.notBefore) > nowMs + skewMs);
  if (early) {
    return {
      code: 'assertion_not_yet_valid',
      message: `the assertion is not yet valid: its ${what} NotBefore ${early.notBefore} is ahead (${skewMs / 1000} s of clock skew allowed; check the clocks)`,
    };
  }
  return null;
}

/**
 * Names what node-saml refused, by its error message (the library has no
 * error codes). Its "no valid subject confirmation" hides the expiry of the
 * subject confirmation, so that case is read again from the timestamps.
 */
export function validationFailure(
  error: unknown,
  envelope: SamlEnvelope,
  nowMs: number,
  skewMs: number,
): SamlFailure {
  const text = oneLine(error instanceof Error ? error.message : String(error), 300);
  if (/signature|Referenced node|ID cannot refer|Cannot obtain assertion from signed data/i.test(text)) {
    return {
      code: 'signature_invalid',
      message: `the signature does not verify with the provider's idp_certificate (${text})`,
    };
  }
  if (/^SAML assertion expired/.test(text) || /not yet valid/.test(text)) {
    const conditions = envelope.conditions ? [envelope.conditions] : [];
    return (
      timingFailure(conditions, nowMs, skewMs, 'Conditions') ??
      (/expired/.test(text)
        ? { code: 'assertion_expired', message: `the assertion expired (${text})` }
        : { code: 'assertion_not_yet_valid', message: `the assertion is not yet valid (${text})` })
    );
  }
  if (/^No valid subject confirmation/.test(text)) {
    return (
      timingFailure(envelope.subjectConfirmations, nowMs, skewMs, 'SubjectConfirmationData') ?? {
        code: 'subject_confirmation_invalid',
        message: `no usable bearer subject confirmation (${text})`,
      }
    );
  }
  if (/audience|AudienceRestriction/i.test(text)) {
    return { code: 'audience_mismatch', message: `the assertion is not addressed to saml.issuer (${text})` };
  }
  if (/InResponseTo/i.test(text)) {
    return {
      code: 'in_response_to_mismatch',
      message: `the assertion does not answer the pending AuthnRequest (${text})`,
    };
  }
  if (/^Missing SAML assertion/.test(text)) {
    return { code: 'no_assertion', message: 'the response holds no assertion' };
  }
  if (/EncryptedAssertion|decryption/i.test(text)) {
    return { code: 'encrypted_assertion', message: 'encrypted assertions are not supported' };
  }
  return { code: 'invalid_response', message: `the response is invalid (${text})` };
}

/**
 * What is wrong with a response before its signature is checked; null hands
 * it to node-saml. The IdP's own refusal (often unsigned) is named before
 * any signature is looked for.
 */
export function envelopeFailure(envelope: SamlEnvelope, expected: SamlExpectations): SamlFailure | null {
  if (envelope.destination !== null && envelope.destination !== expected.acsUrl) {
    return {
      code: 'wrong_destination',
      message: `wrong Destination ${oneLine(envelope.destination, 200)} (expected ${expected.acsUrl})`,
    };
  }
  return statusFailure(envelope.status) ?? sha1Failure(envelope.signatureAlgorithms, expected.allowSha1);
}

/** What is wrong with an assertion node-saml verified (the envelope's Issuer is checked too). */
export function assertionFailure(
  facts: AssertionFacts,
  envelope: SamlEnvelope,
  expected: SamlExpectations,
): SamlFailure | null {
  const { idpEntityId } = expected;
  if (idpEntityId) {
    const wrong = [envelope.issuer, facts.issuer].find((i) => i !== null && i !== idpEntityId);
    if (wrong !== undefined || facts.issuer === null) {
      return {
        code: 'wrong_issuer',
        message: `wrong Issuer ${oneLine(wrong ?? 'none', 200)} (expected saml.idp_entity_id ${idpEntityId})`,
      };
    }
  }
  if (!facts.recipients.includes(expected.acsUrl)) {
    return { code: 'wrong_recipient', message: 'wrong or missing Recipient in SubjectConfirmationData' };
  }
  if (!facts.id) return { code: 'no_assertion_id', message: 'the assertion has no ID' };
  if (!EMAIL_ADDRESS.test(facts.email)) {
    return {
      code: 'no_email',
      message: 'the assertion names no email address (no email attribute, no emailAddress NameID)',
    };
  }
  return null;
}
