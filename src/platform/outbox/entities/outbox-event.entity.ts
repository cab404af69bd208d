import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A domain event written in the same transaction as the change it describes. */
@Entity('outbox_events')
@Index('outbox_events_unpublished_idx', ['occurredAt', 'seq'], { where: 'published_at IS NULL' })
export class OutboxEvent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  type: string;

  @Column('uuid', { nullable: true })
  spaceId: string | null;

  @Column('uuid', { nullable: true })
  actorId: string | null;

  @Column('jsonb')
  payload: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  occurredAt: Date;

  /** Insertion order: breaks ties between the events one transaction writes (they share its `occurred_at`). */
  @Column({ type: 'bigint', select: false, insert: false, update: false })
  @Generated('increment')
  seq: string;

  /** Set once every consumer handled the event (or it was given up after repeated failures). */
  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;

  @Column('int', { default: 0 })
  attempts: number;

  @Column('text', { nullable: true })
  lastError: string | null;

  /** After a consumer failed, the event waits until then. */
  @Column('timestamptz', { nullable: true })
  retryAt: Date | null;
}
