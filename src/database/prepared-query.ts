import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

// Statement names by text: a name is bound to one text on every connection.
const names = new Map<string, string>();

/**
 * Runs a hot, fixed statement as a named prepared statement straight on the
 * pool: PostgreSQL parses and plans it once per connection instead of on
 * every request, and no TypeORM query runner is set up for it. For the
 * per-request authentication reads; everything else goes through TypeORM.
 */
export async function preparedQuery<Row>(
  dataSource: DataSource,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  let name = names.get(text);
  if (!name) {
    name = `verity_${names.size + 1}`;
    names.set(text, name);
  }
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const result = await pool.query({ name, text, values });
  return result.rows as Row[];
}
