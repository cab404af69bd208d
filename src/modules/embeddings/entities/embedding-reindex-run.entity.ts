import { Column, Entity, PrimaryColumn } from 'typeorm';

export const REINDEX_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ReindexState = (typeof REINDEX_STATES)[number];

/**
 * The latest reindex of one item type in one scope, with its persisted
 * cursor: a run taken over after a crash continues after `cursor`, so
 * items already done are not redone.
 */
@Entity('embedding_reindex_runs')
export class EmbeddingReindexRun {
  @PrimaryColumn('text')
  scope: string;

  @PrimaryColumn('text')
  itemType: string;

  @Column('uuid')
  runId: string;

  @Column('text')
  state: ReindexState;

  @Column('integer', { default: 0 })
  total: number;

  @Column('integer', { default: 0 })
  done: number;

  @Column('integer', { default: 0 })
  failed: number;

  /** The last item id handled (items go in id order). */
  @Column('uuid', { nullable: true })
  cursor: string | null;

  /** provider/model/dimensions the run embeds with; a run whose configuration changed stops. */
  @Column('text')
  fingerprint: string;

  @Column('text', { nullable: true })
  lastError: string | null;

  @Column('timestamptz')
  startedAt: Date;

  @Column('timestamptz', { nullable: true })
  finishedAt: Date | null;
}
