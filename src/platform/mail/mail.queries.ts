import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MailAttachment } from './entities/mail-message.entity';

export interface ClaimedRow {
  id: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  attachments: MailAttachment[];
  attempts: number;
}

/**
 * The mail outbox claim, in raw SQL rather than the repository API: one
 * `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING`
 * claims a batch for this process without holding a transaction while SMTP
 * talks, and concurrent workers skip each other's rows. It uses
 * mail_outbox_pending_idx (next_attempt_at, partial on pending/sending) and
 * the mail_outbox primary key.
 */
@Injectable()
export class MailQueries {
  /** Claims up to `batch` due messages for a minute; a claim left by a crashed process expires. */
  async claimDue(em: EntityManager, batch: number): Promise<ClaimedRow[]> {
    const [claimed] = (await em.query(
      `UPDATE mail_outbox SET status = 'sending', next_attempt_at = now() + interval '1 minute',
                attempts = attempts + 1
          WHERE id IN (SELECT id FROM mail_outbox
                        WHERE status IN ('pending', 'sending') AND next_attempt_at <= now()
                        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id, recipient, subject, text_body, html_body, attachments, attempts`,
      [batch],
    )) as [ClaimedRow[], number];
    return claimed;
  }
}
