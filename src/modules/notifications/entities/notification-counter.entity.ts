import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Notifications per user and type (all, and unread), kept in step with
 * `notifications` in the same transactions, so counts and list totals are a
 * read of a few rows however many notifications a user has. A count is the
 * sum of its shards; a shard's `unread` may go below zero (a notification
 * counted on one shard and read on another).
 */
@Entity('notification_counters')
export class NotificationCounter {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'notification_counters_pkey' })
  userId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'notification_counters_pkey' })
  type: string;

  /** Counts are spread over a few rows, so that concurrent notifications to one user do not queue on one row. */
  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'notification_counters_pkey' })
  shard: number;

  @Column('int', { default: 0 })
  unread: number;

  @Column('int', { default: 0 })
  total: number;
}
