import { DomainError } from '../../common/errors/domain-error';

/** A delivery whose Standard Webhooks signature does not verify, or that no configured secret can verify. */
export class InvalidSignature extends DomainError {
  constructor(detail: string) {
    super(401, 'invalid-signature', 'Unauthorized', detail, { code: 'invalid_signature' });
  }
}
