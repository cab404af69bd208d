import type { StoredResponse } from './idempotency-key';
import { DomainError, ValidationFailed } from '../../common/errors/domain-error';
import { ReadyAnswer } from '../../common/errors/ready-answer';

export class IdempotencyKeyInvalid extends ValidationFailed {
  constructor() {
    super([
      {
        field: 'Idempotency-Key',
        message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters, sent once.',
      },
    ]);
  }
}

/** The key was used before for another request (method, path or body). */
export class IdempotencyKeyReused extends DomainError {
  constructor() {
    super(
      422,
      'idempotency-key-reused',
      'Unprocessable Content',
      'This Idempotency-Key was already used for a different request (method, path or body); use a new key.',
      { code: 'idempotency_key_reused' },
    );
  }
}

/** The first request with this key is still being processed. */
export class IdempotencyKeyInUse extends DomainError {
  constructor() {
    super(
      409,
      'idempotency-key-in-use',
      'Conflict',
      'A request with this Idempotency-Key is still being processed; retry once it has finished.',
      { code: 'idempotency_key_in_use' },
      { 'Retry-After': '1' },
    );
  }
}

/**
 * The key already holds this request's answer: thrown by the claim before the
 * handler, or by one made inside the request's transaction (which rolls back:
 * nothing was written). The problem-details filter sends the stored response,
 * marked `Idempotent-Replayed: true`.
 */
export class IdempotentReplay extends ReadyAnswer {
  constructor(stored: StoredResponse) {
    super(replayOf(stored));
  }
}

/** The stored response as a replay sends it. */
export function replayOf(stored: StoredResponse): StoredResponse {
  return { ...stored, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' } };
}
