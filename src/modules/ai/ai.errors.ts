import { DomainError } from '../../common/errors/domain-error';

/**
 * The gateway's problems. None is a 500: a provider's failure is a 502, its
 * silence a 504, a missing or disabled configuration a 503 (the feature is
 * unavailable until an administrator acts), an exhausted budget a 429 with
 * Retry-After at the window's reset.
 */
export class AiNotConfigured extends DomainError {
  constructor(
    detail = 'No AI provider is configured: a superadmin must set one up under /admin/ai-config/.',
  ) {
    super(503, 'ai-not-configured', 'AI Not Configured', detail, { code: 'ai_not_configured' });
  }
}

export class AiDisabled extends DomainError {
  constructor() {
    super(503, 'ai-disabled', 'AI Disabled', 'AI features are switched off in the provider configuration.', {
      code: 'ai_disabled',
    });
  }
}

export class AiBudgetExceeded extends DomainError {
  constructor(entryPoint: string, limit: string, resetsAt: Date, logId: string) {
    const wait = Math.max(1, Math.ceil((resetsAt.getTime() - Date.now()) / 1000));
    super(
      429,
      'ai-budget-exceeded',
      'AI Budget Exceeded',
      `The ${limit.replace('_', ' ')} budget of ${entryPoint === 'global' ? 'all AI features' : `the ${entryPoint} feature`} is used up until ${resetsAt.toISOString()}.`,
      {
        code: 'budget_exceeded',
        entry_point_id: entryPoint,
        limit,
        resets_at: resetsAt.toISOString(),
        log_id: logId,
      },
      { 'Retry-After': String(wait) },
    );
  }
}

export class AiInputBlocked extends DomainError {
  constructor(variables: string[], logId: string) {
    super(
      422,
      'ai-input-blocked',
      'AI Input Blocked',
      `The call was blocked: ${variables.join(', ')} contains instructions aimed at the model (prompt injection).`,
      { code: 'ai_input_blocked', variables, log_id: logId },
    );
  }
}

export class AiProviderFailed extends DomainError {
  constructor(detail: string, logId: string) {
    super(502, 'ai-provider-error', 'AI Provider Error', detail, {
      code: 'ai_provider_error',
      log_id: logId,
    });
  }
}

export class AiProviderTimeout extends DomainError {
  constructor(detail: string, logId: string) {
    super(504, 'ai-provider-timeout', 'AI Provider Timeout', detail, {
      code: 'ai_provider_timeout',
      log_id: logId,
    });
  }
}
