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
}
