import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Wakeup } from '../jobs/wakeup.service';
import { jsonValue } from '../../database/json-column';
import { OutboxEvent } from './entities/outbox-event.entity';
import { DomainEvent, DomainEventType } from './event-map';

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
    this.wakeup.signal(em, 'outbox');
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
    this.wakeup.signal(em, 'outbox');
  }
}
