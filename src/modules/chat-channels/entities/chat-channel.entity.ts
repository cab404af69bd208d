import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

export const CHAT_KINDS = ['slack', 'teams', 'google_chat'] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];

/** A Slack, Microsoft Teams or Google Chat incoming webhook that a space's events are posted to. */
@Entity('chat_channels')
@Index('chat_channels_space_idx', ['spaceId', 'createdAt'])
export class ChatChannel {
  /** Assigned before insert: the sealed URL is bound to it. */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'chat_channels_pkey' })
  id: string;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'chat_channels_space_fk' })
  space?: Space;

  @Column('text')
  name: string;

  @Column('text')
  kind: ChatKind;

  /** The webhook URL, sealed with AES-256-GCM: it is the channel's only credential. Never returned. */
  @Column('text', { select: false })
  urlSealed: string;

  /** The URL's host, shown instead of the URL. */
  @Column('text')
  urlHost: string;

  @Column('text', { array: true })
  eventTypes: string[];

  @Column('text')
  minSeverity: string;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  /** The first message of the current unbroken run of messages that failed after their retries. */
  @Column('timestamptz', { nullable: true })
  failingSince: Date | null;

  /** Messages that failed after their retries since the last one sent. */
  @Column('int', { default: 0 })
  consecutiveFailures: number;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
