import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Check, RunStatus } from './check.entity';

export const RUN_SOURCES = ['manual', 'schedule', 'pushed'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

/** One evaluation of a check (run here, on schedule, or pushed from elsewhere). */
@Entity('quality_check_runs')
@Index('quality_check_runs_check_idx', ['checkId', 'createdAt'])
export class CheckRun {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  checkId: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  status: RunStatus;

  @Column('double precision', { nullable: true })
  observedValue: number | null;

  @Column('text', { nullable: true })
  message: string | null;

  @Column('text')
  source: RunSource;

  /** The alert a failed run opened. */
  @Column('uuid', { nullable: true })
  alertId: string | null;

  @Column('integer', { nullable: true })
  durationMs: number | null;

  @Column('uuid', { nullable: true })
  triggeredBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Check, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'check_id', foreignKeyConstraintName: 'quality_check_runs_check_fk' })
  check?: Check;
}
