import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Actor } from '../common/auth/actor';
import { RequestTransactions } from './request-transaction';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock
const MAX_ATTEMPTS = 3;

/**
 * Runs a use case in one explicit transaction. Everything inside must go
 * through the given manager: on the embedded database the pool has one
 * connection, and a query outside the transaction would wait for it.
 *
 * Given the request's actor, the request's pending prologue (its idempotency
 * claim, see request-transaction.ts) runs as the transaction's first
 * statement; a rolled-back attempt leaves it pending for the retry.
 */
@Injectable()
export class TransactionRunner {
  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (em: EntityManager) => Promise<T>, actor?: Actor): Promise<T> {
    const prologue = actor && RequestTransactions.pending(actor);
    const attempt = prologue
      ? async (em: EntityManager) => {
          await prologue.run(em);
          return work(em);
        }
      : work;
    for (let tries = 1; ; tries++) {
      try {
        const result = await this.dataSource.transaction(attempt);
        if (prologue && actor) {
          RequestTransactions.detach(actor);
          prologue.committed();
        }
        return result;
      } catch (error) {
        const code =
          error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
        if (!code || !RETRYABLE.has(code) || tries >= MAX_ATTEMPTS) throw error;
        await new Promise((done) => setTimeout(done, 10 * tries + Math.random() * 20));
      }
    }
  }
}
