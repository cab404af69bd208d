import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Copying a user row from the control plane into an instance database, in
 * raw SQL rather than the repository API: the row travels as JSON
 * (row_to_json, then json_populate_record), column for column whatever the
 * users table holds, where an entity would have to name every column and
 * would drop those it does not map. Both statements use the users primary
 * key.
 */
@Injectable()
export class InstanceScopeQueries {
  /** The user row as JSON, from the database `em` works on. */
  async userRow(em: EntityManager, userId: string): Promise<Record<string, unknown> | null> {
    const [found] = (await em.query('SELECT row_to_json(u) AS row FROM users u WHERE u.id = $1', [
      userId,
    ])) as {
      row: Record<string, unknown>;
    }[];
    return found ? found.row : null;
  }

  /** Inserts or updates the user row (as userRow answers it) in the database `em` works on. */
  async upsertUserRow(em: EntityManager, row: Record<string, unknown>): Promise<void> {
    const updates = Object.keys(row)
      .filter((column) => column !== 'id')
      .map((column) => `"${column}" = EXCLUDED."${column}"`);
    await em.query(
      `INSERT INTO users SELECT * FROM json_populate_record(NULL::users, $1::json)
       ON CONFLICT (id) DO UPDATE SET ${updates.join(', ')}`,
      [JSON.stringify(row)],
    );
  }
}
