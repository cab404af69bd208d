import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Webhook } from './webhook.entity';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event for one webhook. Its id is the `webhook-id` header: the same on every attempt. */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_event_webhook_key', ['eventId', 'webhookId'], {
  unique: true,
  where: 'event_id IS NOT NULL',
})
@Index('webhook_deliveries_webhook_created_idx', ['webhookId', 'createdAt'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  webhookId: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'webhook_deliveries_webhook_fk' })
  webhook?: Webhook;

  /** The outbox event; null for test deliveries. */
  @Column('uuid', { nullable: true })
  eventId: string | null;

  @Column('text')
  eventType: string;

  /** The exact JSON body sent on every attempt. */
  @Column('text')
  body: string;

  @Column('text', { default: 'pending' })
  status: DeliveryStatus;

  @Column('int', { default: 0 })
  attempts: number;

  @Column('int', { nullable: true })
  lastResponseCode: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  deliveredAt: Date | null;
}
