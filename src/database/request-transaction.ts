import type { EntityManager } from 'typeorm';
import type { Actor } from '../common/auth/actor';

/**
 * A statement a request must run first in its first transaction, so that it
 * commits (or rolls back) with the request's writes instead of in a commit of
 * its own: the idempotency claim (IdempotencyGuard leaves it for a
 * `@ClaimsInTransaction()` route). TransactionRunner.run runs it when the
 * service passes the request's actor; once a transaction that ran it has
 * committed, it is done and later transactions of the request skip it.
 */
export interface TransactionPrologue {
  /** Runs inside the transaction before the work; throws to refuse the request (the transaction rolls back). */
  run(em: EntityManager): Promise<void>;
  /** The transaction that ran it has committed. */
  committed(): void;
  /** The prologue as a CTE for a write that is one autocommit statement (see InlinePrologue). */
  inline(from: number): InlinePrologue;
}

/**
 * The prologue folded into a write that is a single autocommit statement
 * (POST /spaces): `sql` is a data-modifying CTE body (parameters `params`,
 * numbered from the `from` given) that returns a row when it ran, and the
 * statement writes only if it did; `settle` is then called with whether it
 * did, and throws as `run` would have when it did not.
 */
export interface InlinePrologue {
  sql: string;
  params: unknown[];
  settle(ran: boolean): Promise<void>;
}

// Keyed by the request's Actor: the authentication guard builds one per request, and it is what every
// service method already receives first, so no async-local storage (which, on Node 20, would hook every
// promise of the process) is needed to find the request from inside a service.
const pending = new WeakMap<Actor, TransactionPrologue>();

export const RequestTransactions = {
  /** Leaves `prologue` for the first transaction run for `actor`'s request. */
  attach(actor: Actor, prologue: TransactionPrologue): void {
    pending.set(actor, prologue);
  },

  /** The prologue still to run for `actor`'s request, if any. */
  pending(actor: Actor): TransactionPrologue | undefined {
    return pending.get(actor);
  },

  /** The pending prologue as a CTE for a one-statement write (parameters from `from`); later writes skip it. */
  inline(actor: Actor, from: number): InlinePrologue | undefined {
    const prologue = pending.get(actor);
    if (!prologue) return undefined;
    pending.delete(actor);
    return prologue.inline(from);
  },

  /** The prologue ran and committed (or the request gave up on it): later transactions skip it. */
  detach(actor: Actor): void {
    pending.delete(actor);
  },
};
