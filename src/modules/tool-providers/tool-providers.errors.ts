import { DomainError, FieldError } from '../../common/errors/domain-error';

/**
 * A refused tool-provider setting (the spec's error table: 400 for invalid
 * provider config, unsupported kind, unknown allowlisted tool name,
 * non-read enablement). The detail names the field; `errors[]` lists each.
 */
export class InvalidToolConfig extends DomainError {
  constructor(errors: FieldError[]) {
    super(
      400,
      'invalid-tool-config',
      'Bad Request',
      errors.length === 1 ? errors[0].message : errors.map((e) => e.message).join(' '),
      { code: 'invalid_tool_config', errors },
    );
  }

  static field(field: string, message: string): InvalidToolConfig {
    return new InvalidToolConfig([{ field, message }]);
  }
}

export class ProviderInactive extends DomainError {
  constructor(id: string) {
    super(
      400,
      'tool-provider-inactive',
      'Bad Request',
      `Tool provider ${id} is inactive: activate it first.`,
      {
        code: 'tool_provider_inactive',
      },
    );
  }
}

/** Talking to the provider's process failed; `reason` is safe to show (no secret, no raw output). */
export class ProviderFailed extends DomainError {
  constructor(readonly reason: string) {
    super(502, 'tool-provider-failed', 'Bad Gateway', reason, { code: 'tool_provider_failed' });
  }
}

/** The space's web_search capability is not usable; `readiness_errors` says why. */
export class CapabilityNotReady extends DomainError {
  constructor(readonly readinessErrors: string[]) {
    super(
      409,
      'capability-not-ready',
      'Conflict',
      `Web search is not available in this space: ${readinessErrors.join('; ')}.`,
      { code: 'capability_not_ready', readiness_errors: readinessErrors },
    );
  }
}
