import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { AccountsQueries } from './accounts.queries';

/** Daily removal of sessions, tokens and failed sign-ins that can no longer matter. */
@Injectable()
export class AccountsCleanupService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
    private readonly queries: AccountsQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register('accounts.cleanup', () => this.purge());
    this.jobs.registerCron('accounts.cleanup', '17 3 * * *', 'accounts.cleanup');
  }

  async purge(): Promise<void> {
    // No transaction: each purge runs on the DataSource's manager.
    const em = this.dataSource.manager;
    await this.queries.purgeStaleSessions(em);
    await this.queries.purgeStaleResetTokens(em);
    await this.queries.purgeOldLoginFailures(em);
  }
}
