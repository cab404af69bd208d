import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { SsoQueries } from './sso.queries';

/** Daily removal of expired pending logins, one-time codes and remembered assertion IDs. */
@Injectable()
export class SsoCleanupService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
    private readonly queries: SsoQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register('sso.cleanup', () => this.purge());
    this.jobs.registerCron('sso.cleanup', '23 3 * * *', 'sso.cleanup');
  }

  async purge(): Promise<void> {
    // No transaction: each purge runs on the DataSource's manager.
    const em = this.dataSource.manager;
    await this.queries.purgeExpiredPendingLogins(em);
    await this.queries.purgeExpiredLoginCodes(em);
    // An assertion past its NotOnOrAfter is refused anyway, so its ID need not be remembered.
    await this.queries.purgeExpiredAssertions(em);
  }
}
