import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Counter rows per (user, type); a write moves the shard of its connection. */
const SHARDS = 16;
// Pool connections have distinct backend pids: concurrent transactions move different rows.
const SHARD = `(pg_backend_pid() % ${SHARDS})::smallint`;
const COUNT_CONFLICT = `ON CONFLICT (user_id, type, shard) DO UPDATE
     SET unread = notification_counters.unread + EXCLUDED.unread, total = notification_counters.total + EXCLUDED.total`;

export interface NewNotificationRow {
  user_id: string;
  type: string;
  title: string;
  message: string;
  data: unknown;
  email_status: string;
}

export interface NotificationRow {
  id: string;
  type: string;
  title: string;
  message: string;
  read: boolean;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * The notifications' raw SQL. Counters are sharded (user_id, type, shard) and
 * moved by deltas in the statement that changes the notifications, from the
 * rows it changed (RETURNING), so they stay exact under concurrent writes and
 * a write never reads before it writes. Indexes: the notifications primary
 * key (mark one read), notifications_user_unread_created_idx (partial, read =
 * false) for mark-all-read, the notification_counters primary key
 * (user_id, type, shard) for the upserts and the sums.
 */
@Injectable()
export class NotificationQueries {
  /** Inserts the notifications and counts them as new and unread: one statement. */
  async insertMany(em: EntityManager, rows: NewNotificationRow[]): Promise<void> {
    await em.query(
      `WITH n AS (
         INSERT INTO notifications (user_id, type, title, message, data, email_status)
         SELECT r.user_id, r.type, r.title, r.message, r.data, r.email_status
           FROM jsonb_to_recordset($1::jsonb)
             AS r(user_id uuid, type text, title text, message text, data jsonb, email_status text)
         RETURNING user_id, type
       )
       INSERT INTO notification_counters (user_id, type, shard, unread, total)
       SELECT user_id, type, ${SHARD}, count(*), count(*) FROM n GROUP BY user_id, type
       ${COUNT_CONFLICT}`,
      [JSON.stringify(rows)],
    );
  }

  /**
   * Sets the user's notification read or unread and moves the unread count
   * when it changed: one statement. Answers the notification as it now is
   * (none when it is not the user's).
   */
  async setRead(
    em: EntityManager,
    userId: string,
    id: string,
    read: boolean,
  ): Promise<{ row: NotificationRow; changed: boolean } | undefined> {
    const [row] = (await em.query(
      `WITH changed AS (
         UPDATE notifications SET read = $3 WHERE id = $1 AND user_id = $2 AND read <> $3
         RETURNING id, type, title, message, read, data, created_at
       ), counted AS (
         INSERT INTO notification_counters (user_id, type, shard, unread, total)
         SELECT $2, type, ${SHARD}, CASE WHEN $3 THEN -1 ELSE 1 END, 0 FROM changed
         ${COUNT_CONFLICT}
       )
       SELECT *, true AS changed FROM changed
       UNION ALL
       -- Unchanged: it was already so when the update looked (a concurrent move is waited for).
       SELECT id, type, title, message, $3::boolean, data, created_at, false FROM notifications
        WHERE id = $1 AND user_id = $2 AND NOT EXISTS (SELECT 1 FROM changed)`,
      [id, userId, read],
    )) as (NotificationRow & { changed: boolean })[];
    if (!row) return undefined;
    const { changed, ...notification } = row;
    return { row: notification, changed };
  }

  /** Marks the user's unread notifications (of the type, when given) read; returns how many changed. One statement. */
  async markAllRead(em: EntityManager, userId: string, type: string | undefined): Promise<number> {
    const [{ marked }] = (await em.query(
      `WITH m AS (
         UPDATE notifications SET read = true
          WHERE user_id = $1 AND read = false AND ($2::text IS NULL OR type = $2)
         RETURNING type
       ), counted AS (
         INSERT INTO notification_counters (user_id, type, shard, unread, total)
         SELECT $1, type, ${SHARD}, -count(*), 0 FROM m GROUP BY type
         ${COUNT_CONFLICT}
       )
       SELECT count(*)::int AS marked FROM m`,
      [userId, type ?? null],
    )) as { marked: number }[];
    return marked;
  }

  /** The user's unread notifications per type (types with none left out). */
  async unreadByType(em: EntityManager, userId: string): Promise<{ type: string; unread: number }[]> {
    return (await em.query(
      `SELECT type, sum(unread)::int AS unread FROM notification_counters
        WHERE user_id = $1 GROUP BY type HAVING sum(unread) > 0`,
      [userId],
    )) as { type: string; unread: number }[];
  }
}
