import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export interface MappingRow {
  id: string;
  group_id: string;
  group_name: string;
  space_id: string;
  space: string;
  role: string;
  member_count: number;
  created_at: Date;
  updated_at: Date;
}

const SELECT_MAPPINGS = `SELECT m.id, m.group_id, g.display_name AS group_name, m.space_id, s.slug AS space, m.role,
       (SELECT count(*)::int FROM scim_group_members gm WHERE gm.group_id = m.group_id) AS member_count,
       m.created_at, m.updated_at
  FROM scim_group_role_mappings m
  JOIN scim_groups g ON g.id = m.group_id
  JOIN spaces s ON s.id = m.space_id`;

/**
 * Group → space-role mappings as the admin API shows them, in raw SQL
 * rather than the repository API: each row joins its group's name, its
 * space's slug and its group's member count, in one statement per page.
 * Indexes: scim_group_role_mappings_created_at_idx (the page order), the
 * scim_group_role_mappings primary key, scim_groups' and spaces' primary
 * keys, spaces_slug_key (the `space` filter), scim_group_role_mappings_group_space_key
 * (the `group_id` filter) and scim_group_members' primary key (the count).
 */
@Injectable()
export class ScimGroupMappingsQueries {
  async page(
    em: EntityManager,
    filter: { groupId?: string; spaceSlug?: string },
    skip: number,
    limit: number,
  ): Promise<{ rows: MappingRow[]; total: number }> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.groupId) {
      values.push(filter.groupId);
      where.push(`m.group_id = $${values.length}`);
    }
    if (filter.spaceSlug) {
      values.push(filter.spaceSlug);
      where.push(`s.slug = $${values.length}`);
    }
    const condition = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const n = values.length;
    const rows = (await em.query(
      `${SELECT_MAPPINGS} ${condition} ORDER BY m.created_at, m.id OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...values, skip, limit],
    )) as MappingRow[];
    const [{ total }] = (await em.query(
      `SELECT count(*)::int AS total FROM scim_group_role_mappings m JOIN spaces s ON s.id = m.space_id ${condition}`,
      values,
    )) as { total: number }[];
    return { rows, total };
  }

  async one(em: EntityManager, id: string): Promise<MappingRow | undefined> {
    const [row] = (await em.query(`${SELECT_MAPPINGS} WHERE m.id = $1`, [id])) as MappingRow[];
    return row;
  }
}
