import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AiEvalRun } from './ai-eval-run.entity';

/** The outcome of one case in one eval run (at most one per case: a resumed run skips what it recorded). */
@Entity('ai_eval_results')
export class AiEvalResult {
  @PrimaryColumn('uuid')
  runId: string;

  @PrimaryColumn('text')
  caseId: string;

  @Column('integer')
  position: number;

  @Column('text')
  feature: string;

  @Column('boolean')
  passed: boolean;

  @Column('jsonb', { default: () => "'[]'" })
  failures: string[];

  /** The gateway's log entry of the case's call; null when the call was refused before one was written. */
  @Column('uuid', { nullable: true })
  logId: string | null;

  @Column('integer')
  latencyMs: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => AiEvalRun, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id', foreignKeyConstraintName: 'ai_eval_results_run_fk' })
  run?: AiEvalRun;
}
