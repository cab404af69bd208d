import { DomainError, Forbidden, Unauthorized } from '../../common/errors/domain-error';

/** What the browser is told about any failed SSO login; the cause goes to the log and the audit entry. */
export const SSO_FAILED_DETAIL = 'Single sign-on failed. Start the sign-in again, or ask your administrator.';

/**
 * A refused SSO login. `cause` names the exact reason for the admin (log,
 * audit); the problem body carries only the generic sentence.
 */
export class SsoLoginFailed extends Unauthorized {
  constructor(
    readonly reason: string,
    readonly providerId: string | null,
    readonly email?: string,
  ) {
    super(SSO_FAILED_DETAIL, 'sso_failed');
  }
}

/** A valid identity that may not sign in here (unknown without JIT, deactivated, pending). */
export class SsoLoginForbidden extends Forbidden {
  constructor(
    detail: string,
    code: string,
    readonly reason: string,
    readonly providerId: string,
    readonly email?: string,
  ) {
    super(detail, code);
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
