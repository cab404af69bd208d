import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Unread notifications per user and type, kept in step with `notifications`
 * in the same transactions, so the unread count is a read of a few rows
 * however many notifications a user has.
 */
@Entity('notification_counters')
export class NotificationCounter {
  @PrimaryColumn('uuid')
  userId: string;

  @PrimaryColumn('text')
  type: string;

  @Column('int', { default: 0 })
  unread: number;
}
