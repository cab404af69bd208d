import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** One unit of background work, claimed with FOR UPDATE SKIP LOCKED by any replica. */
@Entity('jobs')
@Index('jobs_due_idx', ['runAt'], { where: `status = 'pending'` })
@Index('jobs_stalled_idx', ['lockedUntil'], { where: `status = 'running'` })
@Index('jobs_singleton_key', ['singletonKey'], {
  unique: true,
  where: `singleton_key IS NOT NULL AND status IN ('pending', 'running')`,
})
export class Job {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('jsonb', { default: () => `'{}'` })
  payload: Record<string, unknown>;

  @Column('text', { default: 'pending' })
  status: JobStatus;

  @Column('timestamptz', { default: () => 'now()' })
  runAt: Date;

  @Column('int', { default: 0 })
  attempts: number;

  @Column('int', { default: 5 })
  maxAttempts: number;

  /** A running job whose lock expired is taken over (its worker died). */
  @Column('timestamptz', { nullable: true })
  lockedUntil: Date | null;

  @Column('text', { nullable: true })
  lastError: string | null;

  /** At most one pending or running job per key (digests per user, cron occurrences). */
  @Column('text', { nullable: true })
  singletonKey: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  finishedAt: Date | null;
}
