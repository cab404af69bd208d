import { DomainError, Forbidden, Unauthorized } from '../../common/errors/domain-error';
import type { SamlFailureCode } from './saml-failures';

/** What the browser is told about any failed SSO login; the cause goes to the log and the audit entry. */
export const SSO_FAILED_DETAIL = 'Single sign-on failed. Start the sign-in again, or ask your administrator.';

/** Stable codes of refused logins, written to the audit entry (`details.reason`) beside the sentence. */
export type SsoFailureCode =
  | SamlFailureCode
  | 'provider_disabled'
  | 'no_email'
  // OIDC
  | 'state_missing'
  | 'state_mismatch'
  | 'login_expired'
  | 'idp_error'
  | 'discovery_failed'
  | 'token_invalid'
  | 'userinfo_failed'
  | 'email_unverified';

/**
 * A refused SSO login. `reasonCode` and `reason` name the exact cause for
 * the admin (log, audit); the problem body carries only the generic sentence.
 */
export class SsoLoginFailed extends Unauthorized {
  constructor(
    readonly reasonCode: SsoFailureCode,
    readonly reason: string,
    readonly providerId: string | null,
    readonly email?: string,
  ) {
    super(SSO_FAILED_DETAIL, 'sso_failed');
  }
}

/** A valid identity that may not sign in here (unknown without JIT, deactivated, pending). */
export class SsoLoginForbidden extends Forbidden {
  /** The audit's reason code: the problem's code without its `sso_` prefix. */
  readonly reasonCode: string;

  constructor(
    detail: string,
    code: 'sso_account_unknown' | 'account_pending' | 'account_inactive',
    readonly reason: string,
    readonly providerId: string,
    readonly email?: string,
  ) {
    super(detail, code);
    this.reasonCode = code.replace(/^sso_/, '');
  }
}

export class SsoProviderNotFound extends DomainError {
  constructor(id: string) {
    super(404, 'not-found', 'Not Found', `No enabled SSO provider with id ${id} was found.`, {
      code: 'not_found',
      resource: 'sso_provider',
    });
  }
}

/** Starting a login needs the OIDC discovery document; the identity provider did not answer it. */
export class IdpUnavailable extends DomainError {
  constructor() {
    super(502, 'bad-gateway', 'Bad Gateway', 'The identity provider could not be reached: try again later.', {
      code: 'sso_idp_unavailable',
    });
  }
}
