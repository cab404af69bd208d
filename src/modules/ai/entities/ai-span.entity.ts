import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AiWorkflowRun } from './ai-workflow-run.entity';

export type AiSpanName = 'route' | 'prompt' | 'budget' | 'guardrails' | 'provider' | 'log';

/** One step of a gateway call within a workflow run. */
@Entity('ai_spans')
@Index('ai_spans_run_idx', ['runId', 'startedAt'])
export class AiSpan {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  runId: string;

  @ManyToOne(() => AiWorkflowRun, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id', foreignKeyConstraintName: 'ai_spans_run_fk' })
  run?: AiWorkflowRun;

  @Column('uuid', { nullable: true })
  logId: string | null;

  @Column('smallint')
  attempt: number;

  @Column('text')
  name: AiSpanName;

  @Column('text')
  status: string;

  @Column('timestamptz')
  startedAt: Date;

  @Column('double precision')
  durationMs: number;

  @Column('jsonb', { default: () => "'{}'" })
  detail: Record<string, unknown>;
}
