import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { DroppedCounts, WebSearchResult } from '../web-research-rules';
import { AuthoringTask } from './authoring-task.entity';

export type EvidenceStatus = 'pending' | 'complete';

/**
 * The normalised outcome of one live web search of a task: the sanitised
 * query and the validated result items, never the provider's raw answer.
 * A `pending` row reserves a quota slot while the call runs (so concurrent
 * searches cannot pass the limit); it becomes `complete` or is removed.
 */
@Entity('web_search_evidence')
@Index('web_search_evidence_task_key_uq', ['taskId', 'queryKeyHash'], { unique: true })
@Index('web_search_evidence_task_created_idx', ['taskId', 'createdAt'])
export class WebSearchEvidence {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  taskId: string;

  @ManyToOne(() => AuthoringTask, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_id', foreignKeyConstraintName: 'web_search_evidence_task_fk' })
  task?: AuthoringTask;

  /** sha256 of the sanitised query, case-folded: the reuse key. */
  @Column('text')
  queryKeyHash: string;

  /** The sanitised query (a query that failed sanitising is never stored). */
  @Column('text')
  query: string;

  @Column('text')
  status: EvidenceStatus;

  @Column('smallint')
  maxResults: number;

  @Column('jsonb', { default: () => "'[]'" })
  results: WebSearchResult[];

  /** What validation dropped from the tool's answer, by reason. */
  @Column('jsonb', { default: () => "'{}'" })
  dropped: Partial<DroppedCounts>;

  @Column('uuid')
  bindingId: string;

  @Column('uuid')
  providerId: string;

  /** The tool as `{slug}.{tool_name}` at the time of the call. */
  @Column('text')
  toolName: string;

  /** The AI workflow run of the live call. */
  @Column('uuid', { nullable: true })
  runId: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  completedAt: Date | null;
}
