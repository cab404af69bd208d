import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The notifications' raw SQL: the per-user, per-type counters are upserted and
 * moved by relative UPDATEs (`unread = unread + 1`), and mark-all-read is one
 * set-based UPDATE that reports how many rows it changed; the repository API
 * would read then write, racing with concurrent notifications. Indexes: the
 * notification_counters primary key (user_id, type), and
 * notifications_user_unread_created_idx (partial, read = false) for
 * mark-all-read.
 */
@Injectable()
export class NotificationQueries {
  /** Counts one new unread notification of the type for the user. */
  async countNew(em: EntityManager, userId: string, type: string): Promise<void> {
    await em.query(
      `INSERT INTO notification_counters (user_id, type, unread, total) VALUES ($1, $2, 1, 1)
         ON CONFLICT (user_id, type) DO UPDATE
           SET unread = notification_counters.unread + 1, total = notification_counters.total + 1`,
      [userId, type],
    );
  }

  /** Moves the user's unread count of the type by `delta`, never below 0. */
  async moveUnread(em: EntityManager, userId: string, type: string, delta: number): Promise<void> {
    await em.query(
      `UPDATE notification_counters SET unread = GREATEST(0, unread + $3) WHERE user_id = $1 AND type = $2`,
      [userId, type, delta],
    );
  }

  /** Marks the user's unread notifications (of the type, when given) read; returns how many changed. */
  async markAllRead(em: EntityManager, userId: string, type: string | undefined): Promise<number> {
    const params: unknown[] = [userId];
    let filter = '';
    if (type) {
      params.push(type);
      filter = ' AND type = $2';
    }
    const [, marked] = (await em.query(
      `UPDATE notifications SET read = true WHERE user_id = $1 AND read = false${filter}`,
      params,
    )) as [unknown, number];
    await em.query(`UPDATE notification_counters SET unread = 0 WHERE user_id = $1${filter}`, params);
    return marked;
  }
}
