import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { jsonValue } from '../../database/json-column';
import { nextOccurrence } from './cron';
import { Job } from './entities/job.entity';
import { JobSchedule } from './entities/job-schedule.entity';
import { SerialTask } from './serial-task';
import { Wakeup } from './wakeup.service';

export interface JobContext {
  id: string;
  attempt: number;
}

export type JobHandler<T> = (payload: T, context: JobContext) => Promise<void>;

export interface JobOptions {
  /** Attempts before the job is marked failed. */
  maxAttempts?: number;
  /** Delay before attempt `n + 1`, after attempt `n` (1-based) failed. */
  backoffMs?: (attempt: number) => number;
  /** A running job not finished by then is presumed dead and retried. */
  timeoutMs?: number;
}

interface Registration {
  handler: JobHandler<never>;
  options: Required<JobOptions>;
}

interface CronRegistration {
  cron: string;
  timezone: string;
  job: string;
}

const POLL_MS = 1_000;
const BATCH = 20;
const DEFAULTS: Required<JobOptions> = {
  maxAttempts: 5,
  backoffMs: (attempt) => Math.min(60 * 60_000, 5_000 * 4 ** (attempt - 1)),
  timeoutMs: 5 * 60_000,
};

/**
 * The one background job runner: PostgreSQL rows claimed with
 * `FOR UPDATE SKIP LOCKED`, so any number of replicas share the work and a
 * job runs once. Each module registers its own handlers. Cron schedules are
 * rows too: the replica that claims a due one enqueues its occurrence.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JobRunner.name);
  private readonly handlers = new Map<string, Registration>();
  private readonly crons = new Map<string, CronRegistration>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly loop = new SerialTask(
    () => this.tick(),
    (error) => this.logger.error(`Job runner tick failed: ${String(error)}`),
  );
  private stopped = false;
  private unsubscribe: (() => void) | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly wakeup: Wakeup,
  ) {}

  register<T>(name: string, handler: JobHandler<T>, options: JobOptions = {}): void {
    if (this.handlers.has(name)) throw new Error(`Job ${name} is registered twice.`);
    this.handlers.set(name, { handler: handler as JobHandler<never>, options: { ...DEFAULTS, ...options } });
  }

  /** Runs job `job` on a cron schedule (at most once per occurrence across replicas). */
  registerCron(name: string, cron: string, job: string, timezone = 'UTC'): void {
    nextOccurrence(cron, new Date(), timezone); // fails the boot on a bad expression
    this.crons.set(name, { cron, timezone, job });
  }

  /** Enqueues a job, in the caller's transaction when `em` is given. A live job with the same singleton key wins. */
  async enqueue<T extends object>(
    em: EntityManager | null,
    name: string,
    payload: T,
    options: { runAt?: Date; singletonKey?: string; maxAttempts?: number } = {},
  ): Promise<void> {
    if (!this.handlers.has(name)) throw new Error(`No handler is registered for job ${name}.`);
    await (em ?? this.dataSource.manager)
      .createQueryBuilder()
      .insert()
      .into(Job)
      .values({
        name,
        payload: jsonValue(payload as Record<string, unknown>),
        runAt: options.runAt ?? new Date(),
        singletonKey: options.singletonKey ?? null,
        maxAttempts: options.maxAttempts ?? this.handlers.get(name)!.options.maxAttempts,
      })
      .orIgnore()
      .execute();
    this.wakeup.signal(em, 'jobs');
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const [name, schedule] of this.crons) {
      await this.dataSource.query(
        `INSERT INTO job_schedules (name, cron, timezone, next_run_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone,
           next_run_at = CASE WHEN job_schedules.cron = EXCLUDED.cron AND job_schedules.timezone = EXCLUDED.timezone
                              THEN job_schedules.next_run_at ELSE EXCLUDED.next_run_at END`,
        [
          name,
          schedule.cron,
          schedule.timezone,
          nextOccurrence(schedule.cron, new Date(), schedule.timezone),
        ],
      );
    }
    this.unsubscribe = this.wakeup.on('jobs', () => this.kick());
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
    this.kick();
  }

  // Before shutdown, not on it: the database connection closes on shutdown, and a job claimed by a
  // tick still in flight must finish (or at least record its outcome) while it can.
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  kick(): void {
    this.loop.kick();
  }

  /**
   * Runs everything that is due until nothing is left (tests and tooling):
   * jobs claimed by the background loop are waited for too.
   */
  async drain(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.tick();
      await Promise.allSettled([...this.inFlight]);
      const [{ busy }] = (await this.dataSource.query(
        `SELECT EXISTS (SELECT 1 FROM jobs WHERE (status = 'pending' AND run_at <= now()) OR status = 'running') AS busy`,
      )) as { busy: boolean }[];
      if (!busy) return;
      if (Date.now() > deadline) throw new Error('Jobs did not drain in time.');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async tick(): Promise<void> {
    await this.enqueueDueSchedules();
    for (;;) {
      const claimed = await this.claim();
      for (const job of claimed) {
        const run = this.execute(job).finally(() => this.inFlight.delete(run));
        this.inFlight.add(run);
      }
      if (claimed.length < BATCH || this.stopped) return;
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private async enqueueDueSchedules(): Promise<void> {
    if (!this.crons.size) return;
    await this.dataSource.transaction(async (em) => {
      const due = (await em.query(
        `SELECT name, next_run_at FROM job_schedules WHERE next_run_at <= now() AND name = ANY($1)
         FOR UPDATE SKIP LOCKED`,
        [[...this.crons.keys()]],
      )) as { name: string; next_run_at: Date }[];
      for (const row of due) {
        const schedule = this.crons.get(row.name)!;
        await this.enqueue(
          em,
          schedule.job,
          { scheduled_for: row.next_run_at.toISOString() },
          {
            singletonKey: `cron:${row.name}:${row.next_run_at.toISOString()}`,
          },
        );
        await em.getRepository(JobSchedule).update(row.name, {
          lastRunAt: row.next_run_at,
          nextRunAt: nextOccurrence(schedule.cron, new Date(), schedule.timezone),
        });
      }
    });
  }

  private async claim(): Promise<Job[]> {
    const names = [...this.handlers.keys()];
    if (!names.length) return [];
    const [rows] = (await this.dataSource.query(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1,
              locked_until = now() + make_interval(secs => $3)
        WHERE id IN (SELECT id FROM jobs
                      WHERE name = ANY($1)
                        AND ((status = 'pending' AND run_at <= now()) OR (status = 'running' AND locked_until < now()))
                      ORDER BY run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, name, payload, attempts, max_attempts`,
      [names, BATCH, DEFAULTS.timeoutMs / 1000],
    )) as [{ id: string; name: string; payload: object; attempts: number; max_attempts: number }[], number];
    return rows.map((row) =>
      Object.assign(new Job(), {
        id: row.id,
        name: row.name,
        payload: row.payload,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
      }),
    );
  }

  private async execute(job: Job): Promise<void> {
    const registration = this.handlers.get(job.name)!;
    try {
      await registration.handler(job.payload as never, { id: job.id, attempt: job.attempts });
      await this.dataSource.query(
        `UPDATE jobs SET status = 'done', finished_at = now(), locked_until = NULL, last_error = NULL WHERE id = $1`,
        [job.id],
      );
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
      const final = job.attempts >= job.maxAttempts;
      if (final) this.logger.warn(`Job ${job.name} ${job.id} failed for good: ${message}`);
      await this.dataSource.query(
        `UPDATE jobs SET status = $2, last_error = $3, locked_until = NULL,
                run_at = now() + make_interval(secs => $4), finished_at = CASE WHEN $2 = 'failed' THEN now() END
          WHERE id = $1`,
        [job.id, final ? 'failed' : 'pending', message, registration.options.backoffMs(job.attempts) / 1000],
      );
    }
  }
}
