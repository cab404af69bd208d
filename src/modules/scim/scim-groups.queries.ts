import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { FilterColumn } from './scim-filter';
import type { ScimGroupRow } from './scim-resources';

const GROUP_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 'g.id', type: 'uuid' },
  // lower(display_name) is what the unique index holds, so `displayName eq` is one index probe.
  displayname: { sql: 'g.display_name', type: 'string' },
  externalid: { sql: 'g.external_id', type: 'string', caseExact: true },
};

const GROUP_FIELDS = 'g.id, g.display_name, g.external_id, g.created_at, g.updated_at';

/** A compiled SCIM filter: a condition and its bound values ($1…). */
export interface CompiledGroupFilter {
  sql: string;
  params: unknown[];
}

/**
 * SCIM Groups in raw SQL rather than the repository API: filters compile to
 * SQL conditions over the group columns, and a group is locked by a plain
 * `FOR UPDATE`. Indexes: scim_groups_created_at_idx (the page, in
 * created_at, id order), scim_groups_display_name_key (lower(display_name)),
 * scim_groups_external_id_idx, and the scim_groups primary key.
 */
@Injectable()
export class ScimGroupsQueries {
  /** The filterable attributes and their SQL, for compileFilter. */
  readonly filterColumns = GROUP_COLUMNS;

  async page(
    em: EntityManager,
    filter: CompiledGroupFilter | undefined,
    offset: number,
    limit: number,
  ): Promise<ScimGroupRow[]> {
    const values = filter?.params ?? [];
    const n = values.length;
    return (await em.query(
      `SELECT ${GROUP_FIELDS} FROM scim_groups g WHERE ${filter?.sql ?? 'true'} ORDER BY g.created_at, g.id OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...values, offset, limit],
    )) as ScimGroupRow[];
  }

  async count(em: EntityManager, filter: CompiledGroupFilter | undefined): Promise<number> {
    const [{ total }] = (await em.query(
      `SELECT count(*)::int AS total FROM scim_groups g WHERE ${filter?.sql ?? 'true'}`,
      filter?.params ?? [],
    )) as { total: number }[];
    return total;
  }

  /** Whether a group has this display name, ignoring case. */
  async nameTaken(em: EntityManager, displayName: string): Promise<boolean> {
    const [taken] = (await em.query(`SELECT 1 FROM scim_groups WHERE lower(display_name) = lower($1)`, [
      displayName,
    ])) as unknown[];
    return !!taken;
  }

  async touch(em: EntityManager, groupId: string): Promise<void> {
    await em.query(`UPDATE scim_groups SET updated_at = now() WHERE id = $1`, [groupId]);
  }

  /** The group, locked for a write when `lock`. */
  async one(em: EntityManager, id: string, lock: boolean): Promise<ScimGroupRow | undefined> {
    const [row] = (await em.query(
      `SELECT ${GROUP_FIELDS} FROM scim_groups g WHERE g.id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    )) as ScimGroupRow[];
    return row;
  }
}
