import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type MailStatus = 'pending' | 'sending' | 'sent' | 'logged' | 'failed';

export interface MailAttachment {
  filename: string;
  contentType: string;
  /** base64 */
  content: string;
}

/**
 * Every outgoing message is written here in the business transaction and
 * delivered after commit; without SMTP_URL the row is the delivery.
 */
@Entity('mail_outbox')
@Index('mail_outbox_pending_idx', ['nextAttemptAt'], { where: `status IN ('pending', 'sending')` })
export class MailMessage {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  recipient: string;

  @Column('text')
  subject: string;

  @Column('text')
  textBody: string;

  @Column('text')
  htmlBody: string;

  @Column('jsonb', { default: () => `'[]'` })
  attachments: MailAttachment[];

  @Column('text', { default: 'pending' })
  status: MailStatus;

  @Column('int', { default: 0 })
  attempts: number;

  @Column('text', { nullable: true })
  lastError: string | null;

  @Column('timestamptz', { default: () => 'now()' })
  nextAttemptAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  sentAt: Date | null;
}
