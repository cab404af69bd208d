import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { jsonValue } from '../../database/json-column';
import { AuditEntry } from './entities/audit-entry.entity';

export interface AuditRecord {
  action: string;
  /** Who acted when there is no authenticated actor yet (a sign-in). */
  actorId?: string | null;
  resourceType: string;
  resourceId?: string | null;
  spaceId?: string | null;
  ip?: string | null;
  details?: Record<string, unknown>;
}

function credentialOf(actor: Actor): string | null {
  if (actor.apiKeyId) return `api_key:${actor.apiKeyId}`;
  if (actor.sessionId) return `session:${actor.sessionId}`;
  return null;
}

@Injectable()
export class AuditService {
  /** Writes an audit entry in the caller's transaction, so it exists exactly when the action happened. */
  async record(em: EntityManager, actor: Actor | null, record: AuditRecord): Promise<void> {
    await em.getRepository(AuditEntry).insert({
      action: record.action,
      actorId: actor?.userId ?? record.actorId ?? null,
      impersonatorId: actor?.impersonatorId ?? null,
      credential: actor ? credentialOf(actor) : null,
      resourceType: record.resourceType,
      resourceId: record.resourceId ?? null,
      spaceId: record.spaceId ?? null,
      ip: record.ip ?? null,
      details: jsonValue(record.details ?? {}),
    });
  }
}
