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
  /**
   * Creates, in one statement for a whole batch of events, each event's delivery to every enabled
   * webhook of its space subscribed to its type, unless it exists; returns the new rows' ids.
   */
  async insertDeliveries(
    em: EntityManager,
    events: { eventId: string; spaceId: string; eventType: string; body: string }[],
  ): Promise<{ id: string }[]> {
    return (await em.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body)
       SELECT w.id, e.event_id, e.event_type, e.body
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY
              AS e(event_id, space_id, event_type, body, position)
         JOIN webhooks w ON w.space_id = e.space_id AND w.is_enabled AND e.event_type = ANY(w.event_types)
        ORDER BY e.position, w.id
       ON CONFLICT (event_id, webhook_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING id`,
      [
        events.map((e) => e.eventId),
        events.map((e) => e.spaceId),
        events.map((e) => e.eventType),
        events.map((e) => e.body),
      ],
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
