import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** One audit entry as the batch insert reads it (snake_case, JSON). */
export interface AuditRow {
  action: string;
  actor_id: string | null;
  impersonator_id: string | null;
  credential: string | null;
  resource_type: string;
  resource_id: string | null;
  space_id: string | null;
  ip: string | null;
  details: unknown;
}

/**
 * The batch insert of audit entries, in raw SQL rather than the repository
 * API: many entries in one statement from one JSON parameter
 * (jsonb_array_elements), whatever their number, where a repository insert
 * binds every column of every row. It writes in the caller's transaction
 * and reads no index (the audit_log primary key and its indexes are only
 * maintained).
 */
@Injectable()
export class AuditQueries {
  async insertMany(em: EntityManager, rows: AuditRow[]): Promise<void> {
    await em.query(
      `INSERT INTO audit_log (action, actor_id, impersonator_id, credential, resource_type, resource_id, space_id, ip, details)
       SELECT r->>'action', (r->>'actor_id')::uuid, (r->>'impersonator_id')::uuid, r->>'credential',
              r->>'resource_type', r->>'resource_id', (r->>'space_id')::uuid, r->>'ip', r->'details'
         FROM jsonb_array_elements($1::jsonb) r`,
      [JSON.stringify(rows)],
    );
  }
}
