import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Wakeup } from '../jobs/wakeup.service';
import { jsonValue } from '../../database/json-column';
import { OutboxEvent } from './entities/outbox-event.entity';
import { DomainEvent, DomainEventType } from './event-map';

/**
 * The writing process's dispatcher is woken after the transaction commits (Wakeup.signalHere), not by
 * a NOTIFY inside it: a transaction that NOTIFYs holds PostgreSQL's notification-queue lock through its
 * commit, serializing writers; and one NOTIFY would wake every process's dispatcher for one batch.
 */
@Injectable()
export class OutboxService {
  constructor(private readonly wakeup: Wakeup) {}

  /** Records an event in the caller's transaction: it exists exactly when the change does. */
  async append<T extends DomainEventType>(em: EntityManager, event: DomainEvent<T>): Promise<void> {
    await em.getRepository(OutboxEvent).insert({
      type: event.type,
      spaceId: event.spaceId ?? null,
      actorId: event.actorId ?? null,
      payload: jsonValue(event.data as Record<string, unknown>),
    });
    this.wakeup.signalHere(em, 'outbox');
  }

  /**
   * The event as the jsonb a caller's own statement inserts (`type`, `space_id`, `actor_id`, `payload`),
   * for a write that folds its event into one statement with the change; call `written` after it.
   */
  row<T extends DomainEventType>(event: DomainEvent<T>): string {
    return JSON.stringify({
      type: event.type,
      space_id: event.spaceId ?? null,
      actor_id: event.actorId ?? null,
      payload: event.data,
    });
  }

  /** After a statement of the caller's inserted an event (see `row`): wakes the dispatchers once it commits. */
  written(em: EntityManager | null): void {
    this.wakeup.signalHere(em, 'outbox');
  }

  /** Records many events in one statement (a recomputation can change thousands of memberships). */
  async appendMany<T extends DomainEventType>(em: EntityManager, events: DomainEvent<T>[]): Promise<void> {
    if (!events.length) return;
    await em.query(
      `INSERT INTO outbox_events (type, space_id, actor_id, payload)
       SELECT e->>'type', (e->>'space_id')::uuid, (e->>'actor_id')::uuid, e->'payload'
         FROM jsonb_array_elements($1::jsonb) e`,
      [
        JSON.stringify(
          events.map((event) => ({
            type: event.type,
            space_id: event.spaceId ?? null,
            actor_id: event.actorId ?? null,
            payload: event.data,
          })),
        ),
      ],
    );
    this.wakeup.signalHere(em, 'outbox');
  }
}
