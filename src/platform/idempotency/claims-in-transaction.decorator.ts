import { SetMetadata } from '@nestjs/common';

export const CLAIMS_IN_TRANSACTION = 'idempotency:claims-in-transaction';

/**
 * The route's service runs its writes through TransactionRunner.run with the
 * request's actor, so IdempotencyGuard leaves the `Idempotency-Key`
 * claim to be the first statement of that transaction instead of claiming it
 * in a commit of its own before the handler (docs/decisions.md, "Idempotency
 * claim in the write's transaction"). Only for routes whose every write goes
 * through such a transaction: a write outside it would run unclaimed.
 */
export const ClaimsInTransaction = (): MethodDecorator => SetMetadata(CLAIMS_IN_TRANSACTION, true);
