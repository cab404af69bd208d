import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The eval suite's raw SQL. A run's counters are bumped in one relative
 * UPDATE (`done = done + 1`) rather than a read-modify-save through the
 * repository, so concurrent case results never overwrite each other's counts.
 * The statement finds its row by the ai_eval_runs primary key.
 */
@Injectable()
export class AiEvalsQueries {
  /** Counts one recorded case result on its run. */
  async countResult(em: EntityManager, runId: string, passed: boolean): Promise<void> {
    await em.query(
      `UPDATE ai_eval_runs SET done = done + 1, passed = passed + $2, failed = failed + $3 WHERE id = $1`,
      [runId, passed ? 1 : 0, passed ? 0 : 1],
    );
  }
}
