import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type AiRunStatus = 'running' | 'succeeded' | 'failed';

/** One feature invocation: the gateway calls it made are its logs, their steps its spans. */
@Entity('ai_workflow_runs')
@Index('ai_workflow_runs_started_idx', ['startedAt', 'id'])
@Index('ai_workflow_runs_feature_started_idx', ['feature', 'startedAt'])
export class AiWorkflowRun {
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  feature: string;

  @Column('text')
  status: AiRunStatus;

  @Column('uuid', { nullable: true })
  userId: string | null;

  @Column('uuid', { nullable: true })
  spaceId: string | null;

  @Column('timestamptz')
  startedAt: Date;

  @Column('timestamptz', { nullable: true })
  finishedAt: Date | null;
}
