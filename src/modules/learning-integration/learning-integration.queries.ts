import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The learning integration's raw SQL. Purging expired message ids is one
 * set-based DELETE, where the repository API would load the rows first; it
 * uses inbound_webhook_messages_expires_idx.
 */
@Injectable()
export class LearningIntegrationQueries {
  /** Forgets the inbound message ids whose replay window has passed. */
  async purgeExpiredMessages(em: EntityManager): Promise<void> {
    await em.query('DELETE FROM inbound_webhook_messages WHERE expires_at < now()');
  }
}
