import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { ChatNotice } from '../chat-notice';
import { ChatChannel } from './chat-channel.entity';

/**
 * `pending`: not attempted yet, so later events of its coalescing key fold into it; `sending`: attempted and
 * waiting for a retry; `sent`; `failed` (after its retries, or its channel was disabled or deleted).
 */
export type ChatMessageStatus = 'pending' | 'sending' | 'sent' | 'failed';

/** One message to one channel: one event, or the events of one incident within a minute folded together. */
@Entity('chat_messages')
@Index('chat_messages_pending_key', ['channelId', 'coalesceKey'], {
  unique: true,
  where: `status = 'pending' AND coalesce_key IS NOT NULL`,
})
@Index('chat_messages_channel_key_send_idx', ['channelId', 'coalesceKey', 'sendAt'])
export class ChatMessage {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'chat_messages_pkey' })
  id: string;

  @Column('uuid')
  channelId: string;

  @ManyToOne(() => ChatChannel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'channel_id', foreignKeyConstraintName: 'chat_messages_channel_fk' })
  channel?: ChatChannel;

  /** `incident:<id>` for the events of an incident (coalesced); null for events sent one by one. */
  @Column('text', { nullable: true })
  coalesceKey: string | null;

  /** What the message says, in no platform's format yet. */
  @Column('jsonb')
  notice: ChatNotice;

  @Column('text', { default: 'pending' })
  status: ChatMessageStatus;

  @Column('int', { default: 0 })
  attempts: number;

  /** When the first attempt is due: now, or the end of the incident's one-minute window. */
  @Column('timestamptz')
  sendAt: Date;

  @Column('int', { nullable: true })
  lastStatusCode: number | null;

  @Column('text', { nullable: true })
  lastError: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  sentAt: Date | null;
}
