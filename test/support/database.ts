import { createHash } from 'node:crypto';
import { Client } from 'pg';

/** The local PostgreSQL server the e2e suite runs against. */
export const SERVER_URL = process.env.E2E_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';

// Worktrees and CI clones on one machine must not share databases.
const checkoutTag = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 8);
export const TEMPLATE_EMPTY = `verity_e2e_${checkoutTag}_empty`;
export const TEMPLATE_SEEDED = `verity_e2e_${checkoutTag}_tpl`;

export const workerDatabase = (worker: string | number) => `verity_e2e_${checkoutTag}_w${worker}`;

export function databaseUrl(name: string): string {
  return `${SERVER_URL}/${name}`;
}

export async function withServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from a template (a file copy: fast). */
export async function cloneDatabase(template: string, name: string): Promise<string> {
  await withServer(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  });
  return databaseUrl(name);
}

export async function dropDatabase(name: string): Promise<void> {
  await withServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Seeded superadmin present in every e2e database. */
export const ROOT_EMAIL = 'root@verity.test';
export const ROOT_PASSWORD = 'root-password-1';

/** An empty database of this name (dropped first if it exists), answering its URL. */
export async function freshDatabase(name: string): Promise<string> {
  await withServer(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  });
  return databaseUrl(name);
}

/** One query on a database of its own connection (an instance's, from outside the app). */
export async function queryDb<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
