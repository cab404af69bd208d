import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';

export const EVAL_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

/** One run of the deterministic eval suite, with its progress. */
@Entity('ai_eval_runs')
@Index('ai_eval_runs_created_idx', ['createdAt', 'id'])
@Index('ai_eval_runs_started_by_idx', ['startedBy'])
export class AiEvalRun {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { default: 'queued' })
  status: EvalRunStatus;

  /** The features whose cases run (all when the run was started without a filter). */
  @Column('text', { array: true, default: () => "'{}'" })
  features: string[];

  @Column('text', { array: true, default: () => "'{}'" })
  caseIds: string[];

  @Column('integer')
  total: number;

  @Column('integer', { default: 0 })
  done: number;

  @Column('integer', { default: 0 })
  passed: number;

  @Column('integer', { default: 0 })
  failed: number;

  /** The gateway workflow run that groups this run's AI calls. */
  @Column('uuid', { nullable: true })
  workflowRunId: string | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('uuid', { nullable: true })
  startedBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'started_by', foreignKeyConstraintName: 'ai_eval_runs_started_by_fk' })
  starter?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  startedAt: Date | null;

  @Column('timestamptz', { nullable: true })
  finishedAt: Date | null;
}
