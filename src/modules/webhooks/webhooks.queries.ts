import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The webhook deliveries' raw SQL. Fan-out matches an event type against the
 * `event_types` array and creates each delivery exactly once with
 * INSERT … ON CONFLICT DO NOTHING RETURNING, and an attempt bumps its counter
 * in one relative UPDATE … RETURNING: neither has a repository call that does
 * it in one race-free statement. Indexes: webhooks_space_idx for the
 * subscribers, the partial unique webhook_deliveries_event_webhook_key for the
 * once-only insert, the webhook_deliveries primary key for the attempt count.
 */
@Injectable()
export class WebhookQueries {
  /** The enabled webhooks of the space subscribed to the event type. */
  async subscribers(em: EntityManager, spaceId: string, eventType: string): Promise<{ id: string }[]> {
    return (await em.query(
      `SELECT id FROM webhooks WHERE space_id = $1 AND is_enabled AND $2 = ANY(event_types)`,
      [spaceId, eventType],
    )) as { id: string }[];
  }

  /** Creates the event's delivery to the webhook unless it exists; returns the new row's id, if any. */
  async insertDelivery(
    em: EntityManager,
    webhookId: string,
    eventId: string,
    eventType: string,
    body: unknown,
  ): Promise<{ id: string }[]> {
    return (await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body) VALUES ($1, $2, $3, $4)
         ON CONFLICT (event_id, webhook_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING id`,
      [webhookId, eventId, eventType, body],
    )) as { id: string }[];
  }

  /** Counts one attempt on the delivery; returns the attempt's number. */
  async countAttempt(em: EntityManager, deliveryId: string, statusCode: number | null): Promise<number> {
    const [[{ attempts }]] = (await em.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_response_code = $2 WHERE id = $1 RETURNING attempts`,
      [deliveryId, statusCode],
    )) as [[{ attempts: number }], number];
    return attempts;
  }
}
