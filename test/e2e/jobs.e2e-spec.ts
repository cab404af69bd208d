import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';

describe('job runner', () => {
  let t: TestApp;
  let jobs: JobRunner;
  let db: DataSource;
  const name = (label: string) => `test.${label}.${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    t = await startApp();
    jobs = t.app.get(JobRunner);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it('runs an enqueued job once with its payload', async () => {
    const seen: unknown[] = [];
    const job = name('once');
    jobs.register<{ n: number }>(job, async (payload) => {
      seen.push(payload);
    });
    await jobs.enqueue(null, job, { n: 7 });
    await jobs.drain();
    expect(seen).toEqual([{ n: 7 }]);
    const [row] = await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job]);
    expect(row).toEqual({ status: 'done', attempts: 1 });
  });

  it('retries a failing job with backoff and marks it failed after its last attempt', async () => {
    const flaky = name('flaky');
    let calls = 0;
    jobs.register(
      flaky,
      async () => {
        calls += 1;
        if (calls < 3) throw new Error(`boom ${calls}`);
      },
      { maxAttempts: 5, backoffMs: () => 0 },
    );
    await jobs.enqueue(null, flaky, {});
    await jobs.drain();
    expect(calls).toBe(3);

    const doomed = name('doomed');
    jobs.register(
      doomed,
      async () => {
        throw new Error('always');
      },
      { maxAttempts: 2, backoffMs: () => 0 },
    );
    await jobs.enqueue(null, doomed, {});
    await jobs.drain();
    const [row] = await db.query(`SELECT status, attempts, last_error FROM jobs WHERE name = $1`, [doomed]);
    expect(row).toEqual({ status: 'failed', attempts: 2, last_error: 'always' });
  });

  it('keeps one live job per singleton key', async () => {
    const job = name('single');
    let runs = 0;
    jobs.register(job, async () => {
      runs += 1;
    });
    await Promise.all([1, 2, 3].map(() => jobs.enqueue(null, job, {}, { singletonKey: `k:${job}` })));
    await jobs.drain();
    expect(runs).toBe(1);
    // Once done, the key is free again.
    await jobs.enqueue(null, job, {}, { singletonKey: `k:${job}` });
    await jobs.drain();
    expect(runs).toBe(2);
  });

  it('never runs a job enqueued in a transaction that rolled back, and runs one enqueued for later only when due', async () => {
    const job = name('tx');
    let runs = 0;
    jobs.register(job, async () => {
      runs += 1;
    });
    await expect(
      db.transaction(async (em) => {
        await jobs.enqueue(em, job, {});
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await jobs.enqueue(null, job, {}, { runAt: new Date(Date.now() + 3_600_000) });
    await jobs.drain();
    expect(runs).toBe(0);
    await db.query(`UPDATE jobs SET run_at = now() WHERE name = $1`, [job]);
    await jobs.drain();
    expect(runs).toBe(1);
  });

  it('takes over a job whose worker died (its lock expired)', async () => {
    const job = name('stalled');
    let runs = 0;
    jobs.register(job, async () => {
      runs += 1;
    });
    await db.query(
      `INSERT INTO jobs (name, status, attempts, locked_until) VALUES ($1, 'running', 1, now() - interval '1 minute')`,
      [job],
    );
    await jobs.drain();
    expect(runs).toBe(1);
    const [row] = await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job]);
    expect(row).toEqual({ status: 'done', attempts: 2 });
  });
});
