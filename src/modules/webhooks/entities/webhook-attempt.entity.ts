import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDelivery } from './webhook-delivery.entity';

/** The log of every delivery attempt. */
@Entity('webhook_attempts')
@Index('webhook_attempts_webhook_started_idx', ['webhookId', 'startedAt'])
@Index('webhook_attempts_delivery_idx', ['deliveryId'])
export class WebhookAttempt {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  deliveryId: string;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'webhook_attempts_delivery_fk' })
  delivery?: WebhookDelivery;

  @Column('uuid')
  webhookId: string;

  @Column('int')
  attemptNumber: number;

  /** `succeeded` for a 2xx answer, else `failed`. */
  @Column('text')
  status: 'succeeded' | 'failed';

  @Column('int', { nullable: true })
  responseCode: number | null;

  @Column('int')
  durationMs: number;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('timestamptz')
  startedAt: Date;

  @Column('timestamptz')
  finishedAt: Date;
}
