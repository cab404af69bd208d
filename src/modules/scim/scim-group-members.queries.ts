import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A group member as SCIM shows it: the user id and their userName. */
export interface ScimMember {
  id: string;
  display: string;
}

/**
 * The members of SCIM groups: set-based reads and writes, whatever the size
 * of the group, in raw SQL because the repository API would load or write
 * them row by row (an identity provider's group may hold thousands).
 * Indexes: scim_group_members' primary key (group_id, user_id) for every
 * statement here; the users primary key and scim_users' primary key
 * (user_id) for the members' userNames.
 */
@Injectable()
export class GroupMembersQueries {
  /** The members of each group, by userName. */
  async membersOf(em: EntityManager, groupIds: string[]): Promise<Map<string, ScimMember[]>> {
    const byGroup = new Map<string, ScimMember[]>();
    if (!groupIds.length) return byGroup;
    const rows = (await em.query(
      `SELECT gm.group_id, u.id, coalesce(su.user_name, u.email) AS display
         FROM scim_group_members gm
         JOIN users u ON u.id = gm.user_id
         LEFT JOIN scim_users su ON su.user_id = u.id
        WHERE gm.group_id = ANY($1::uuid[])
        ORDER BY gm.group_id, lower(coalesce(su.user_name, u.email)), u.id`,
      [groupIds],
    )) as { group_id: string; id: string; display: string }[];
    for (const row of rows) {
      const list = byGroup.get(row.group_id) ?? [];
      list.push({ id: row.id, display: row.display });
      byGroup.set(row.group_id, list);
    }
    return byGroup;
  }

  async memberIds(em: EntityManager, groupId: string): Promise<string[]> {
    const rows = (await em.query(
      `SELECT user_id FROM scim_group_members WHERE group_id = $1 ORDER BY user_id`,
      [groupId],
    )) as { user_id: string }[];
    return rows.map((r) => r.user_id);
  }

  async add(em: EntityManager, groupId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    await em.query(
      `INSERT INTO scim_group_members (group_id, user_id)
       SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
      [groupId, userIds],
    );
  }

  async remove(em: EntityManager, groupId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    await em.query(`DELETE FROM scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[])`, [
      groupId,
      userIds,
    ]);
  }
}
