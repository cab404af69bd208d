import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../platform/jobs/job-runner.service';

/** Daily removal of sessions, tokens and failed sign-ins that can no longer matter. */
@Injectable()
export class AccountsCleanupService implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.register('accounts.cleanup', () => this.purge());
    this.jobs.registerCron('accounts.cleanup', '17 3 * * *', 'accounts.cleanup');
  }

  async purge(): Promise<void> {
    // Revoked or expired sessions are kept a week for investigations; their refresh tokens go with them (cascade).
    await this.dataSource.query(
      `DELETE FROM sessions WHERE expires_at < now() - interval '7 days' OR revoked_at < now() - interval '7 days'`,
    );
    await this.dataSource.query(
      `DELETE FROM password_reset_tokens WHERE expires_at < now() - interval '1 day'`,
    );
    await this.dataSource.query(`DELETE FROM login_failures WHERE failed_at < now() - interval '1 day'`);
  }
}
