import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { AiQueries } from './ai.queries';

export const AI_RETENTION_JOB = 'ai.retention';
const BATCH = 5000;

/**
 * Daily removal of AI logs and workflow runs (with their spans) older than
 * AI_LOG_RETENTION_DAYS, in small batches so the deletes never hold long
 * locks. The daily usage rollups are kept: they hold no prompt or answer.
 */
@Injectable()
export class AiRetentionService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jobs: JobRunner,
    private readonly queries: AiQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(AI_RETENTION_JOB, async () => {
      await this.purge();
    });
    this.jobs.registerCron(AI_RETENTION_JOB, '23 3 * * *', AI_RETENTION_JOB);
  }

  async purge(): Promise<{ logs: number; runs: number }> {
    const days = this.config.ai.logRetentionDays;
    const logs = await this.deleteInBatches((em) => this.queries.deleteOldLogs(em, days, BATCH));
    const runs = await this.deleteInBatches((em) => this.queries.deleteOldRuns(em, days, BATCH));
    return { logs, runs };
  }

  private async deleteInBatches(deleteBatch: (em: EntityManager) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const affected = await deleteBatch(this.dataSource.manager);
      total += affected;
      if (affected < BATCH) return total;
    }
  }
}
