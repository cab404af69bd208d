import { Column, Entity, Generated, Index, PrimaryGeneratedColumn } from 'typeorm';

export const OPENLINEAGE_EVENT_KINDS = ['run', 'job', 'dataset'] as const;
export type OpenLineageEventKind = (typeof OPENLINEAGE_EVENT_KINDS)[number];

/**
 * An OpenLineage event as received, kept for the retention period. A run
 * event is stored once per (run, type, time): the unique index makes a resent
 * event a no-op. The processor applies pending rows in event-time order,
 * ties in the order they arrived (`seq`).
 */
@Entity('openlineage_events')
@Index('openlineage_events_run_key', ['runId', 'eventType', 'eventTime'], { unique: true })
@Index('openlineage_events_pending_idx', ['eventTime', 'seq'], { where: 'processed_at IS NULL' })
@Index('openlineage_events_received_idx', ['receivedAt'])
export class OpenLineageEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Arrival order: breaks ties between events with the same event time. */
  @Column({ type: 'bigint', select: false, insert: false, update: false })
  @Generated('increment')
  seq: string;

  @Column('text')
  kind: OpenLineageEventKind;

  /** RunEvents only. */
  @Column('uuid', { nullable: true })
  runId: string | null;

  /** RunEvents only: START, RUNNING, COMPLETE, FAIL, ABORT or OTHER. */
  @Column('text', { nullable: true })
  eventType: string | null;

  @Column('timestamptz')
  eventTime: Date;

  @Column('jsonb')
  payload: Record<string, unknown>;

  /** The API key's user the event was sent as. */
  @Column('uuid')
  actorUserId: string;

  /** The spaces whose mapped namespaces the event touches; the sender may edit each. */
  @Column('uuid', { array: true })
  spaceIds: string[];

  @Column('timestamptz', { default: () => 'now()' })
  receivedAt: Date;

  @Column('timestamptz', { nullable: true })
  processedAt: Date | null;

  /** What applying the event skipped (edges that would close a cycle, unmatched datasets). */
  @Column('jsonb', { nullable: true })
  outcome: Record<string, unknown> | null;

  @Column('int', { default: 0 })
  attempts: number;

  @Column('text', { nullable: true })
  lastError: string | null;
}
