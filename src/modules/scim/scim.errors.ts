import { DomainError } from '../../common/errors/domain-error';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12 `scimType` values this server answers. */
export type ScimType =
  | 'invalidFilter'
  | 'invalidValue'
  | 'invalidPath'
  | 'invalidSyntax'
  | 'noTarget'
  | 'mutability'
  | 'uniqueness'
  | 'tooMany';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
};

/**
 * A SCIM protocol error. It is a DomainError, so the SCIM exception filter
 * (and, should one escape the SCIM routes, the problem-details filter) can write it.
 */
export class ScimError extends DomainError {
  constructor(
    status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(
      status,
      `scim-${(scimType ?? String(status)).toLowerCase()}`,
      TITLES[status] ?? 'Error',
      detail,
      scimType ? { code: scimType, scimType } : { code: `scim_${status}` },
      status === 401 ? { 'WWW-Authenticate': 'Bearer realm="scim"' } : {},
    );
  }
}
