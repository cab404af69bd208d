import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';

// Two replicas on one database (PostgreSQL only: the embedded database serves one process).
describe('cron schedules across replicas', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startApp(), startApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('runs a due occurrence exactly once and schedules the next one', async () => {
    const db = a.app.get(DataSource);
    // Suites that ran before on this worker's database may have left jobs mid-flight (a webhook
    // delivery claimed as its app closed stays "running" for minutes): only the cron's job matters here.
    await db.query(
      `UPDATE jobs SET status = 'failed', finished_at = now() WHERE status IN ('pending', 'running')`,
    );
    const [[{ due }]] = await db.query(
      `UPDATE job_schedules SET next_run_at = date_trunc('minute', now()) - interval '1 hour'
        WHERE name = 'platform.retention' RETURNING next_run_at AS due`,
    );
    await Promise.all([a.app.get(JobRunner).drain(), b.app.get(JobRunner).drain()]);
    const runs = await db.query(`SELECT status FROM jobs WHERE singleton_key = $1`, [
      `cron:platform.retention:${due.toISOString()}`,
    ]);
    expect(runs).toEqual([{ status: 'done' }]);
    const [schedule] = await db.query(
      `SELECT next_run_at, last_run_at FROM job_schedules WHERE name = 'platform.retention'`,
    );
    expect(schedule.last_run_at).toEqual(due);
    expect(schedule.next_run_at.getTime()).toBeGreaterThan(Date.now());
    expect(schedule.next_run_at.getUTCMinutes()).toBe(7);
  });
});
