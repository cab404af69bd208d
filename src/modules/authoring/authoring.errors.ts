import { DomainError } from '../../common/errors/domain-error';
import { MAX_CALLS_PER_TASK } from './web-research-rules';

/** A delegated task (worker or subagent) may not use the web-research facade. */
export class DelegatedTaskForbidden extends DomainError {
  constructor() {
    super(
      403,
      'delegated-task-forbidden',
      'Forbidden',
      'Web search is unavailable to delegated tasks (workers and subagents): search from the root task.',
      { code: 'delegated_task_forbidden' },
    );
  }
}

/** The per-task quota of live searches is used up. A quota, not a rate limit: waiting does not help. */
export class WebSearchQuotaExhausted extends DomainError {
  constructor() {
    super(
      409,
      'web-search-quota-exhausted',
      'Conflict',
      `This task has made ${MAX_CALLS_PER_TASK} distinct web searches, the limit of ${MAX_CALLS_PER_TASK} per task; ` +
        'repeat an earlier query to reuse its evidence, or start a new task.',
      { code: 'web_search_quota_exhausted', limit: MAX_CALLS_PER_TASK },
    );
  }
}

export class SearchInProgress extends DomainError {
  constructor() {
    super(
      409,
      'web-search-in-progress',
      'Conflict',
      'The same query is being searched for this task right now; repeat it once that search has answered.',
      { code: 'web_search_in_progress' },
    );
  }
}

export class UnsafeQuery extends DomainError {
  constructor(reason: string) {
    super(422, 'validation', 'Unprocessable Content', reason, {
      code: 'unsafe_query',
      errors: [{ field: 'query', message: reason }],
    });
  }
}

/** The tool answered, but not something the facade may keep. */
export class WebSearchOutputRefused extends DomainError {
  constructor(reason: string) {
    super(502, 'web-search-output-refused', 'Bad Gateway', reason, { code: 'web_search_output_refused' });
  }
}

export class ConsentAlreadyDecided extends DomainError {
  constructor(status: string) {
    super(
      409,
      'consent-already-decided',
      'Conflict',
      `This consent was already ${status}; it cannot be decided again.`,
      {
        code: 'consent_already_decided',
        consent_status: status,
      },
    );
  }
}

export class ConsentExpired extends DomainError {
  constructor() {
    super(
      409,
      'consent-expired',
      'Conflict',
      'This consent request expired before it was decided; search again to be asked anew.',
      { code: 'consent_expired' },
    );
  }
}
