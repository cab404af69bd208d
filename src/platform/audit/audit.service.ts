import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { jsonValue } from '../../database/json-column';
import { AuditQueries } from './audit.queries';
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

export interface AuditFilter {
  actorId?: string;
  /** Exact, or a prefix when it ends in `.*`. */
  action?: string;
  resourceType?: string;
  resourceId?: string;
  spaceId?: string;
  since?: Date;
  until?: Date;
  skip: number;
  limit: number;
}

@Injectable()
export class AuditService {
  constructor(
    @InjectRepository(AuditEntry) private readonly entries: Repository<AuditEntry>,
    private readonly queries: AuditQueries,
  ) {}

  /** Newest first. */
  async list(filter: AuditFilter): Promise<{ items: AuditEntry[]; total: number }> {
    const qb = this.entries.createQueryBuilder('a');
    if (filter.actorId) qb.andWhere('a.actorId = :actorId', { actorId: filter.actorId });
    if (filter.action?.endsWith('.*')) {
      qb.andWhere('a.action LIKE :prefix', {
        prefix: `${filter.action.slice(0, -1).replace(/[\\%_]/g, '\\$&')}%`,
      });
    } else if (filter.action) qb.andWhere('a.action = :action', { action: filter.action });
    if (filter.resourceType)
      qb.andWhere('a.resourceType = :resourceType', { resourceType: filter.resourceType });
    if (filter.resourceId) qb.andWhere('a.resourceId = :resourceId', { resourceId: filter.resourceId });
    if (filter.spaceId) qb.andWhere('a.spaceId = :spaceId', { spaceId: filter.spaceId });
    if (filter.since) qb.andWhere('a.createdAt >= :since', { since: filter.since });
    if (filter.until) qb.andWhere('a.createdAt < :until', { until: filter.until });
    const [items, total] = await qb
      .orderBy('a.createdAt', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .skip(filter.skip)
      .take(filter.limit)
      .getManyAndCount();
    return { items, total };
  }

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

  /** Writes many entries of one actor in one statement. */
  async recordMany(em: EntityManager, actor: Actor | null, records: AuditRecord[]): Promise<void> {
    if (!records.length) return;
    await this.queries.insertMany(
      em,
      records.map((record) => ({
        action: record.action,
        actor_id: actor?.userId ?? record.actorId ?? null,
        impersonator_id: actor?.impersonatorId ?? null,
        credential: actor ? credentialOf(actor) : null,
        resource_type: record.resourceType,
        resource_id: record.resourceId ?? null,
        space_id: record.spaceId ?? null,
        ip: record.ip ?? null,
        details: record.details ?? {},
      })),
    );
  }
}
