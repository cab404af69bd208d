import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Notifications per user and type (all, and unread), kept in step with
 * `notifications` in the same transactions, so counts and list totals are a
 * read of a few rows however many notifications a user has.
 */
@Entity('notification_counters')
export class NotificationCounter {
  @PrimaryColumn('uuid')
  userId: string;

  @PrimaryColumn('text')
  type: string;

  @Column('int', { default: 0 })
  unread: number;

  @Column('int', { default: 0 })
  total: number;
}
