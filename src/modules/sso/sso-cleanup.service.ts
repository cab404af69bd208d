import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../platform/jobs/job-runner.service';

/** Daily removal of expired pending logins, one-time codes and remembered assertion IDs. */
@Injectable()
export class SsoCleanupService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.register('sso.cleanup', () => this.purge());
    this.jobs.registerCron('sso.cleanup', '23 3 * * *', 'sso.cleanup');
  }

  async purge(): Promise<void> {
    await this.dataSource.query(`DELETE FROM sso_pending_logins WHERE expires_at < now()`);
    await this.dataSource.query(`DELETE FROM sso_login_codes WHERE expires_at < now()`);
    // An assertion past its NotOnOrAfter is refused anyway, so its ID need not be remembered.
    await this.dataSource.query(`DELETE FROM sso_assertions WHERE expires_at < now()`);
  }
}
