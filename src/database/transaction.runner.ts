import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock
const MAX_ATTEMPTS = 3;

/**
 * Runs a use case in one explicit transaction. Everything inside must go
 * through the given manager: on the embedded database the pool has one
 * connection, and a query outside the transaction would wait for it.
 */
@Injectable()
export class TransactionRunner {
  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        const code =
          error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
        if (!code || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) throw error;
        await new Promise((done) => setTimeout(done, 10 * attempt + Math.random() * 20));
      }
    }
  }
}
