import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';
import { recordStatements } from '../support/statement-log';

// These tests register throwaway jobs of their own: any name under `test.` is a job with any payload.
declare module '../../src/platform/jobs/job-map' {
  interface JobMap {
    [name: `test.${string}`]: object;
  }
}

describe('job runner', () => {
  let t: TestApp;
  let jobs: JobRunner;
  let db: DataSource;
  const name = (label: string): `test.${string}` => `test.${label}.${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    t = await startApp();
    jobs = t.app.get(JobRunner);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it('runs an enqueued job once with its payload', async () => {
    const seen: unknown[] = [];
    const job = name('once');
    jobs.register(job, async (payload) => {
      seen.push(payload);
    });
    await jobs.enqueue(null, job, { n: 7 });
    await jobs.drain();
    expect(seen).toEqual([{ n: 7 }]);
    const [row] = await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job]);
    expect(row).toEqual({ status: 'done', attempts: 1 });
  });

  it('runs the jobs its enqueues wake without reading the cron schedules, which only the poll reads', async () => {
    const job = name('woken');
    let ran: () => void = () => undefined;
    jobs.register(job, async () => ran());
    await jobs.drain();
    const log = recordStatements();
    let texts: string[];
    try {
      // Five wakeups, five passes: before, each read the schedules.
      for (let i = 0; i < 5; i++) {
        const done = new Promise<void>((resolve) => (ran = resolve));
        await jobs.enqueue(null, job, { i });
        await done;
      }
      texts = log.statements.map((s) => s.text);
    } finally {
      log.stop();
    }
    expect(
      texts.filter((text) => /^UPDATE jobs SET status = 'running'/.test(text)).length,
    ).toBeGreaterThanOrEqual(5);
    // The poll's passes read them, once a second: at most two fall in this short a time.
    expect(texts.filter((text) => /FROM job_schedules/.test(text)).length).toBeLessThanOrEqual(2);
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
    // The first run holds until every enqueue is done: claimed early or not, the job is live throughout.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    jobs.register(job, async () => {
      runs += 1;
      await held;
    });
    await Promise.all([1, 2, 3].map(() => jobs.enqueue(null, job, {}, { singletonKey: `k:${job}` })));
    release();
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

describe('job leases', () => {
  let t: TestApp;
  let jobs: JobRunner;
  let db: DataSource;
  const name = (label: string): `test.${string}` => `test.${label}.${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    // A short lease (renewed every second) keeps the test quick.
    t = await startApp({ env: { JOB_LEASE_SECONDS: '3' } });
    jobs = t.app.get(JobRunner);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A handler that runs until released, and the promise that says it started. */
  function gatedJob() {
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    return {
      handler: async () => {
        started();
        await gate;
      },
      running,
      release: () => release(),
    };
  }

  async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('Condition not met in time.');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('renews the lease of a job that outlives it, so no other worker takes it over', async () => {
    const job = name('long');
    const gated = gatedJob();
    let runs = 0;
    jobs.register(job, async () => {
      runs += 1;
      await gated.handler();
    });
    await jobs.enqueue(null, job, {});
    await gated.running;
    const [claimed] = (await db.query(`SELECT locked_until FROM jobs WHERE name = $1`, [job])) as {
      locked_until: Date;
    }[];
    // Wait until the first lease has run out: only renewals can keep the job ours.
    const row = await until(async () => {
      const [r] = (await db.query(
        `SELECT status, attempts, locked_until > $2 AS renewed, now() > $2 + interval '1 second' AS past
           FROM jobs WHERE name = $1`,
        [job, claimed.locked_until],
      )) as { status: string; attempts: number; renewed: boolean; past: boolean }[];
      return r.past ? r : undefined;
    });
    expect(row).toEqual({ status: 'running', attempts: 1, renewed: true, past: true });
    gated.release();
    await jobs.drain();
    expect(runs).toBe(1);
    const [done] = await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job]);
    expect(done).toEqual({ status: 'done', attempts: 1 });
  });

  it('runs a dead worker’s job again once its short lease runs out', async () => {
    const job = name('orphan');
    const attempts: number[] = [];
    jobs.register(job, async (_payload, context) => {
      attempts.push(context.attempt);
    });
    // Claimed a moment ago by a process that then died: nobody renews it.
    await db.query(
      `INSERT INTO jobs (name, status, attempts, locked_until) VALUES ($1, 'running', 1, now() + interval '3 seconds')`,
      [job],
    );
    const status = await until(async () => {
      const [r] = (await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job])) as {
        status: string;
        attempts: number;
      }[];
      return r.status === 'done' ? r : undefined;
    });
    expect(status).toEqual({ status: 'done', attempts: 2 });
    expect(attempts).toEqual([2]);
  });

  it('does not let a worker that lost its claim overwrite the new holder’s outcome', async () => {
    const job = name('fenced');
    const gated = gatedJob();
    jobs.register(job, gated.handler);
    await jobs.enqueue(null, job, {});
    await gated.running;
    // Another worker took the job over meanwhile (its claim is attempt 2, still running).
    await db.query(`UPDATE jobs SET attempts = 2 WHERE name = $1`, [job]);
    gated.release();
    // Wait for the stale worker to finish its handler and try to record the outcome.
    await until(async () => (jobs['held'].size === 0 ? true : undefined));
    const [row] = await db.query(`SELECT status, attempts FROM jobs WHERE name = $1`, [job]);
    expect(row).toEqual({ status: 'running', attempts: 2 });
    await db.query(`UPDATE jobs SET status = 'done', locked_until = NULL WHERE name = $1`, [job]);
  });
});
