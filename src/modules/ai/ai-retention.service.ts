import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { JobRunner } from '../../platform/jobs/job-runner.service';

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
  ) {}

  onModuleInit(): void {
    this.jobs.register(AI_RETENTION_JOB, async () => {
      await this.purge();
    });
    this.jobs.registerCron(AI_RETENTION_JOB, '23 3 * * *', AI_RETENTION_JOB);
  }

  async purge(): Promise<{ logs: number; runs: number }> {
    const days = this.config.ai.logRetentionDays;
    const logs = await this.deleteInBatches(
      `DELETE FROM ai_logs WHERE id IN (SELECT id FROM ai_logs WHERE created_at < now() - make_interval(days => $1) LIMIT ${BATCH})`,
      days,
    );
    const runs = await this.deleteInBatches(
      `DELETE FROM ai_workflow_runs WHERE id IN (SELECT id FROM ai_workflow_runs WHERE started_at < now() - make_interval(days => $1) LIMIT ${BATCH})`,
      days,
    );
    return { logs, runs };
  }

  private async deleteInBatches(sql: string, days: number): Promise<number> {
    let total = 0;
    for (;;) {
      const [, affected] = (await this.dataSource.query(sql, [days])) as [unknown, number];
      total += affected;
      if (affected < BATCH) return total;
    }
  }
}
