import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from './job-runner.service';

const KEEP_DAYS = 14;

/** Hourly removal of finished platform rows (jobs, published events, delivered mail) past their retention. */
@Injectable()
export class RetentionService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.register('platform.retention', () => this.purge());
    this.jobs.registerCron('platform.retention', '7 * * * *', 'platform.retention');
  }

  async purge(): Promise<void> {
    const cutoff = `now() - make_interval(days => ${KEEP_DAYS})`;
    await this.dataSource.query(
      `DELETE FROM jobs WHERE status IN ('done', 'failed') AND finished_at < ${cutoff}`,
    );
    await this.dataSource.query(`DELETE FROM outbox_events WHERE published_at < ${cutoff}`);
    await this.dataSource.query(
      `DELETE FROM mail_outbox WHERE status IN ('sent', 'logged', 'failed') AND created_at < ${cutoff}`,
    );
  }
}
