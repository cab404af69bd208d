import { Client } from 'pg';
import { workerDatabaseUrl } from './app';

/** Runs one read against this worker's database, for assertions on rows the API does not expose (outbox, audit). */
export async function dbQuery<T = Record<string, unknown>>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: workerDatabaseUrl() });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
