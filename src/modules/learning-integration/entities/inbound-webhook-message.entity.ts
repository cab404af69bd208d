import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * Message ids of inbound webhooks already applied, so that a replay (or the
 * sender's retry of a delivered message) changes nothing. Kept past the
 * signature's timestamp tolerance: a message older than that is refused anyway.
 */
@ControlPlaneEntity()
@Entity('inbound_webhook_messages')
@Index('inbound_webhook_messages_expires_idx', ['expiresAt'])
export class InboundWebhookMessage {
  @PrimaryColumn('text')
  source: string;

  @PrimaryColumn('text')
  messageId: string;

  @Column('timestamptz', { default: () => 'now()' })
  receivedAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('jsonb', { default: () => "'{}'" })
  outcome: Record<string, unknown>;
}
