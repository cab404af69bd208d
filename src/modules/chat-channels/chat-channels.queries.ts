import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ChatNotice } from './chat-notice';

export interface PendingInsert {
  channelId: string;
  coalesceKey: string | null;
  notice: ChatNotice;
  sendAt: Date;
}

/**
 * The chat channels' raw SQL. Subscribers match an event type against the
 * `event_types` array (chat_channels_space_idx narrows to the space); a
 * coalesced message is created once per channel and incident with INSERT …
 * ON CONFLICT DO NOTHING on the partial unique chat_messages_pending_key, so
 * two dispatchers cannot open two; the window's start reads the latest
 * message of the key through chat_messages_channel_key_send_idx; a failure
 * is counted with one relative UPDATE … RETURNING.
 */
@Injectable()
export class ChatChannelQueries {
  /** The enabled channels of the space subscribed to the chat event type. */
  async subscribers(
    em: EntityManager,
    spaceId: string,
    eventType: string,
  ): Promise<{ id: string; min_severity: string }[]> {
    return (await em.query(
      `SELECT id, min_severity FROM chat_channels WHERE space_id = $1 AND is_enabled AND $2 = ANY(event_types)`,
      [spaceId, eventType],
    )) as { id: string; min_severity: string }[];
  }

  /** Creates a message; answers its id, or nothing when a pending one of the same key exists. */
  async insertMessage(em: EntityManager, message: PendingInsert): Promise<string | null> {
    const rows = (await em.query(
      `INSERT INTO chat_messages (channel_id, coalesce_key, notice, send_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (channel_id, coalesce_key) WHERE status = 'pending' AND coalesce_key IS NOT NULL DO NOTHING
         RETURNING id`,
      [message.channelId, message.coalesceKey, JSON.stringify(message.notice), message.sendAt],
    )) as { id: string }[];
    return rows[0]?.id ?? null;
  }

  /** The pending message of a key, locked for folding into. */
  async lockPending(
    em: EntityManager,
    channelId: string,
    coalesceKey: string,
  ): Promise<{ id: string; notice: ChatNotice } | null> {
    const [row] = (await em.query(
      `SELECT id, notice FROM chat_messages WHERE channel_id = $1 AND coalesce_key = $2 AND status = 'pending'
         FOR UPDATE`,
      [channelId, coalesceKey],
    )) as { id: string; notice: ChatNotice }[];
    return row ?? null;
  }

  /** When the latest message of the key was (or is to be) sent: the next window starts a minute later. */
  async latestSendAt(em: EntityManager, channelId: string, coalesceKey: string): Promise<Date | null> {
    const [row] = (await em.query(
      `SELECT send_at FROM chat_messages WHERE channel_id = $1 AND coalesce_key = $2
         ORDER BY send_at DESC LIMIT 1`,
      [channelId, coalesceKey],
    )) as { send_at: Date }[];
    return row?.send_at ?? null;
  }

  async updateNotice(em: EntityManager, messageId: string, notice: ChatNotice): Promise<void> {
    await em.query(`UPDATE chat_messages SET notice = $2 WHERE id = $1`, [messageId, JSON.stringify(notice)]);
  }

  /** Counts a message that failed after its retries; answers the channel's run of such failures. */
  async countFailure(em: EntityManager, channelId: string, at: Date): Promise<number> {
    const [[row]] = (await em.query(
      `UPDATE chat_channels SET consecutive_failures = consecutive_failures + 1,
              failing_since = COALESCE(failing_since, $2)
        WHERE id = $1 RETURNING consecutive_failures`,
      [channelId, at],
    )) as [[{ consecutive_failures: number }?], number];
    return row?.consecutive_failures ?? 0;
  }

  /** The users holding the admin role in the space (`memberOf`: MembershipDirectory's fragment on `u.id`). */
  async spaceAdminIds(em: EntityManager, spaceId: string, memberOf: string): Promise<string[]> {
    const rows = await em
      .createQueryBuilder()
      .select('u.id', 'id')
      .from('users', 'u')
      .where(memberOf, { chatSpaceId: spaceId, chatRole: 'admin' })
      .getRawMany<{ id: string }>();
    return rows.map((row) => row.id);
  }
}
