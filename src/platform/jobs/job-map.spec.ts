import type { AppConfig } from '../../config/app.config';
import { JOB_CATALOG, JobName, unhandledJobs } from './job-map';
import { JobRunner } from './job-runner.service';

describe('declared jobs', () => {
  const declared = Object.keys(JOB_CATALOG) as JobName[];

  it('lists the declared jobs that have no handler', () => {
    expect(unhandledJobs(new Set(declared))).toEqual([]);
    expect(unhandledJobs(new Set(declared.filter((name) => name !== 'webhooks.deliver')))).toEqual([
      'webhooks.deliver',
    ]);
  });

  it('fails the boot when a declared job has no handler, before touching the database', async () => {
    // Null collaborators: the check must throw before the runner uses any of them.
    const runner = new JobRunner(
      null as never,
      null as never,
      { jobLeaseSeconds: 30 } as AppConfig,
      null as never,
    );
    for (const name of declared) {
      if (name !== 'reports.dispatch' && name !== 'sso.cleanup') runner.register(name, async () => undefined);
    }
    await expect(runner.onApplicationBootstrap()).rejects.toThrow(
      'No handler is registered for job sso.cleanup, reports.dispatch.',
    );
  });
});
