/** Base of every problem type URI; URNs are stable and need no resolvable host. */
export const PROBLEM_TYPE_BASE = 'urn:verity:problem:';

export interface FieldError {
  field: string;
  message: string;
  /** A machine-readable reason where a rule gives one (the outbound URL policy's, say). */
  reason?: string;
}

/**
 * An error the domain raises on purpose. It is not an HttpException, so
 * services stay free of HTTP; the problem-details filter turns it into an
 * RFC 9457 body with its status.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    /** Slug appended to PROBLEM_TYPE_BASE. */
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    /** Extra members of the problem body, such as `code` or `errors`. */
    readonly extensions: Record<string, unknown> = {},
    /** Extra response headers, such as Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }

  get type(): string {
    return PROBLEM_TYPE_BASE + this.slug;
  }
}

export class BadRequest extends DomainError {
  constructor(detail: string, code = 'bad_request') {
    super(400, code.replace(/_/g, '-'), 'Bad Request', detail, { code });
  }
}

export class Unauthorized extends DomainError {
  constructor(detail = 'Authentication is required: send a valid bearer token.', code = 'unauthorized') {
    super(401, 'unauthorized', 'Unauthorized', detail, { code }, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class Forbidden extends DomainError {
  constructor(detail = 'You do not have permission to do this.', code = 'forbidden') {
    super(403, 'forbidden', 'Forbidden', detail, { code });
  }
}

export class NotFound extends DomainError {
  constructor(resource: string, id?: string) {
    super(
      404,
      'not-found',
      'Not Found',
      id ? `No ${resource} with id ${id} was found.` : `The ${resource} was not found.`,
      { code: 'not_found', resource },
    );
  }
}

export class Conflict extends DomainError {
  constructor(detail: string, code = 'conflict') {
    super(409, 'conflict', 'Conflict', detail, { code });
  }
}

/** A state move the resource does not allow. */
export class InvalidTransition extends DomainError {
  constructor(detail: string) {
    super(409, 'invalid-transition', 'Conflict', detail, { code: 'invalid_transition' });
  }
}

export class ValidationFailed extends DomainError {
  constructor(errors: FieldError[], detail?: string) {
    super(
      422,
      'validation',
      'Unprocessable Content',
      detail ??
        (errors.length === 1 ? errors[0].message : `The request has ${errors.length} invalid fields.`),
      { code: 'validation_failed', errors },
    );
  }

  /** One invalid field, the most common case in services. */
  static field(field: string, message: string): ValidationFailed {
    return new ValidationFailed([{ field, message }]);
  }
}

export class TooManyRequests extends DomainError {
  constructor(retryAfterSeconds: number, detail?: string, code = 'rate_limited') {
    const wait = Math.max(1, Math.ceil(retryAfterSeconds));
    super(
      429,
      'too-many-requests',
      'Too Many Requests',
      detail ?? `Rate limit exceeded: try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      { code, retry_after: wait },
      { 'Retry-After': String(wait) },
    );
  }
}

export class PayloadTooLarge extends DomainError {
  constructor(detail: string) {
    super(413, 'payload-too-large', 'Payload Too Large', detail, { code: 'payload_too_large' });
  }
}
