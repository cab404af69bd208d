import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import type { RunState } from '../run-event';
import { LineageJob } from './lineage-job.entity';

const toNumber = {
  to: (v: number | null) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};

/** One OpenLineage run of a job, in the state its events converge to (docs/decisions.md#openlineage-run-state). */
@Entity('lineage_runs')
@Index('lineage_runs_space_run_key', ['spaceId', 'runId'], { unique: true })
@Index('lineage_runs_job_time_idx', ['jobId', 'firstEventTime', 'id'])
@Index('lineage_runs_job_completed_idx', ['jobId', 'endedAt'], { where: "state = 'COMPLETE'" })
export class LineageRun {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'lineage_runs_pkey' })
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid')
  jobId: string;

  /** OpenLineage's runId. */
  @Column('uuid')
  runId: string;

  @Column('text')
  state: RunState;

  /** The eventTime of the event that set `state`. */
  @Column('timestamptz')
  stateEventTime: Date;

  @Column('timestamptz', { nullable: true })
  startedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  endedAt: Date | null;

  @Column('bigint', { nullable: true, transformer: toNumber })
  durationMs: number | null;

  @Column('text', { nullable: true })
  errorMessage: string | null;

  @Column('uuid', { nullable: true })
  parentRunId: string | null;

  @Column('text', { nullable: true })
  parentJobNamespace: string | null;

  @Column('text', { nullable: true })
  parentJobName: string | null;

  @Column('timestamptz')
  firstEventTime: Date;

  @Column('timestamptz')
  lastEventTime: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'lineage_runs_space_fk' })
  space?: Space;

  @ManyToOne(() => LineageJob, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'job_id', foreignKeyConstraintName: 'lineage_runs_job_fk' })
  job?: LineageJob;
}
