import { DomainError } from '../../common/errors/domain-error';

/** The source database could not be reached, or failed the query for reasons of its own (a timeout, say). */
export class SourceQueryFailed extends DomainError {
  constructor(reason: string) {
    super(502, 'source-query-failed', 'Bad Gateway', `The source database could not answer: ${reason}`, {
      code: 'source_query_failed',
    });
  }
}
