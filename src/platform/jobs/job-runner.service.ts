import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { jsonValue } from '../../database/json-column';
import { nextOccurrence } from './cron';
import { JobMap, JobName, ScheduledJobName, unhandledJobs } from './job-map';
import { Job } from './entities/job.entity';
import { JobSchedule } from './entities/job-schedule.entity';
import { HeldLease, leasesToRenew, renewalIntervalMs } from './lease';
import { SerialTask, WRITE_FED_GAP_MS } from './serial-task';
import { Wakeup } from './wakeup.service';
import { InstanceContext, InstanceScope } from '../../database/instance-context';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';

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
  /**
   * Longest run: past it the worker stops renewing the job's lease, and
   * another worker retries it once the lease runs out (a hung handler).
   */
  timeoutMs?: number;
}

interface Registration {
  handler: JobHandler<never>;
  options: Required<JobOptions>;
}

interface CronRegistration {
  cron: string;
  timezone: string;
  job: ScheduledJobName;
}

const POLL_MS = 1_000;
const BATCH = 20;
/**
 * Jobs one process runs at once. Claiming goes on while there is room, so a batch of slow jobs
 * (webhook endpoints that answer late) does not hold back the jobs behind it.
 */
const MAX_IN_FLIGHT = 100;
const DEFAULTS: Required<JobOptions> = {
  maxAttempts: 5,
  backoffMs: (attempt) => Math.min(60 * 60_000, 5_000 * 4 ** (attempt - 1)),
  timeoutMs: 5 * 60_000,
};

/**
 * The one background job runner: PostgreSQL rows claimed with
 * `FOR UPDATE SKIP LOCKED`, so any number of replicas share the work and a
 * job runs once. Each module registers its own handlers; the job map
 * (job-map.ts) types them, and a declared job left without one fails the
 * boot. Cron schedules are rows too: the replica that claims a due one
 * enqueues its occurrence.
 *
 * A claim is a short lease (JOB_LEASE_SECONDS) that the claiming worker
 * renews while the job runs, so the jobs of a crashed process run again
 * within one lease. Every claim bumps `attempts`, which fences the outcome:
 * a worker that lost its lease cannot overwrite the new holder's result.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JobRunner.name);
  private readonly handlers = new Map<string, Registration>();
  private readonly crons = new Map<string, CronRegistration>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly held = new Map<string, HeldLease & { scope: InstanceScope | undefined }>();
  /** Instances whose job_schedules rows hold this process's crons. */
  private readonly scheduledOn = new Set<string>();
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  private readonly loop = new SerialTask(
    () => this.tick(),
    (error) => this.logger.error(`Job runner tick failed: ${String(error)}`),
    WRITE_FED_GAP_MS,
  );
  private stopped = false;
  /**
   * Cron schedules are read on the poll's passes (and the first), not on the passes a wakeup starts:
   * under write load a wakeup comes with nearly every write, and a schedule moves once a minute at most.
   */
  private schedulesDue = true;
  private unsubscribe: (() => void) | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly wakeup: Wakeup,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly databases: InstanceDatabases,
  ) {
    this.leaseMs = config.jobLeaseSeconds * 1000;
  }

  register<K extends JobName>(name: K, handler: JobHandler<JobMap[K]>, options: JobOptions = {}): void {
    if (this.handlers.has(name)) throw new Error(`Job ${name} is registered twice.`);
    this.handlers.set(name, { handler: handler as JobHandler<never>, options: { ...DEFAULTS, ...options } });
  }

  /** Runs job `job` on a cron schedule (at most once per occurrence across replicas). */
  registerCron(name: string, cron: string, job: ScheduledJobName, timezone = 'UTC'): void {
    nextOccurrence(cron, new Date(), timezone); // fails the boot on a bad expression
    this.crons.set(name, { cron, timezone, job });
  }

  /** Enqueues a job, in the caller's transaction when `em` is given. A live job with the same singleton key wins. */
  async enqueue<K extends JobName>(
    em: EntityManager | null,
    name: K,
    payload: JobMap[K],
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
    this.wakeup.signalHere(em, 'jobs');
  }

  async onApplicationBootstrap(): Promise<void> {
    // Modules register their handlers in onModuleInit, which has run everywhere by now.
    const unhandled = unhandledJobs(new Set(this.handlers.keys()));
    if (unhandled.length) throw new Error(`No handler is registered for job ${unhandled.join(', ')}.`);
    await this.upsertSchedules();
    this.unsubscribe = this.wakeup.on('jobs', () => this.kick());
    this.timer = setInterval(() => {
      this.schedulesDue = true;
      this.kick();
    }, POLL_MS);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renewLeases(), renewalIntervalMs(this.leaseMs));
    this.heartbeat.unref();
    this.kick();
  }

  /** Each instance database keeps its own schedules: written there before its first tick. */
  private async upsertSchedules(): Promise<void> {
    this.scheduledOn.add(InstanceContext.instanceId());
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
  }

  // Before shutdown, not on it: the database connection closes on shutdown, and a job claimed by a
  // tick still in flight must finish (or at least record its outcome) while it can.
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.renewing;
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
      this.schedulesDue = true;
      await this.tick();
      await Promise.allSettled([...this.inFlight]);
      let busy = false;
      await this.databases.eachInstance(
        async () => {
          const [row] = (await this.dataSource.query(
            `SELECT EXISTS (SELECT 1 FROM jobs WHERE (status = 'pending' AND run_at <= now()) OR status = 'running') AS busy`,
          )) as { busy: boolean }[];
          busy ||= row.busy;
        },
        () => undefined,
      );
      if (!busy) return;
      if (Date.now() > deadline) throw new Error('Jobs did not drain in time.');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Jobs live in the database of the instance whose work enqueued them: one pass per instance. */
  private async tick(): Promise<void> {
    const schedulesDue = this.schedulesDue;
    this.schedulesDue = false;
    await this.databases.eachInstance(
      () => this.tickHere(schedulesDue),
      (instanceId, error) =>
        this.logger.error(`Job runner tick failed on instance ${instanceId}: ${String(error)}`),
    );
  }

  private async tickHere(schedulesDue: boolean): Promise<void> {
    if (!this.scheduledOn.has(InstanceContext.instanceId())) {
      await this.upsertSchedules();
      schedulesDue = true;
    }
    if (schedulesDue) await this.enqueueDueSchedules();
    for (;;) {
      if (this.stopped) return;
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room <= 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      const limit = Math.min(BATCH, room);
      const claimed = await this.claim(limit);
      for (const job of claimed) {
        // Recording the outcome can fail too (the database went away): the lease then lapses and the job runs again.
        const run = this.execute(job)
          .catch((error: unknown) =>
            this.logger.warn(`Job ${job.name} ${job.id} left unrecorded: ${String(error)}`),
          )
          .finally(() => this.inFlight.delete(run));
        this.inFlight.add(run);
      }
      if (claimed.length < limit) return;
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

  private async claim(limit: number): Promise<Job[]> {
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
      [names, limit, this.leaseMs / 1000],
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

  /** Extends the lease of every job this process still runs; one renewal at a time. */
  private async renewLeases(): Promise<void> {
    if (this.renewing) return;
    const leases = leasesToRenew(this.held.values(), Date.now()) as (HeldLease & {
      scope: InstanceScope | undefined;
    })[];
    if (!leases.length) return;
    // Each job's lease is renewed in the database it was claimed from.
    const byInstance = new Map<string, typeof leases>();
    for (const lease of leases) {
      const key = lease.scope?.instanceId ?? DEFAULT_INSTANCE_ID;
      byInstance.set(key, [...(byInstance.get(key) ?? []), lease]);
    }
    const renew = (group: typeof leases) =>
      this.dataSource.query(
        `UPDATE jobs SET locked_until = now() + make_interval(secs => $3)
           FROM unnest($1::uuid[], $2::int[]) AS held(id, attempts)
          WHERE jobs.id = held.id AND jobs.attempts = held.attempts AND jobs.status = 'running'`,
        [group.map((l) => l.id), group.map((l) => l.attempt), this.leaseMs / 1000],
      );
    this.renewing = Promise.all(
      [...byInstance.values()].map((group) =>
        group[0].scope ? InstanceContext.run(group[0].scope, () => renew(group)) : renew(group),
      ),
    )
      .then(
        () => undefined,
        (error: unknown) => this.logger.warn(`Job lease renewal failed: ${String(error)}`),
      )
      .finally(() => (this.renewing = null));
    await this.renewing;
  }

  private async execute(job: Job): Promise<void> {
    const registration = this.handlers.get(job.name)!;
    this.held.set(job.id, {
      scope: InstanceContext.current(),
      id: job.id,
      attempt: job.attempts,
      startedAt: Date.now(),
      timeoutMs: registration.options.timeoutMs,
    });
    try {
      await this.runAndRecord(job, registration);
    } finally {
      this.held.delete(job.id);
    }
  }

  // The outcome is written only while this claim (its attempt number) still holds the job.
  private async runAndRecord(job: Job, registration: Registration): Promise<void> {
    try {
      await registration.handler(job.payload as never, { id: job.id, attempt: job.attempts });
      await this.dataSource.query(
        `UPDATE jobs SET status = 'done', finished_at = now(), locked_until = NULL, last_error = NULL
          WHERE id = $1 AND attempts = $2 AND status = 'running'`,
        [job.id, job.attempts],
      );
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
      const final = job.attempts >= job.maxAttempts;
      if (final) this.logger.warn(`Job ${job.name} ${job.id} failed for good: ${message}`);
      await this.dataSource.query(
        `UPDATE jobs SET status = $2, last_error = $3, locked_until = NULL,
                run_at = now() + make_interval(secs => $4), finished_at = CASE WHEN $2 = 'failed' THEN now() END
          WHERE id = $1 AND attempts = $5 AND status = 'running'`,
        [
          job.id,
          final ? 'failed' : 'pending',
          message,
          registration.options.backoffMs(job.attempts) / 1000,
          job.attempts,
        ],
      );
    }
  }
}
