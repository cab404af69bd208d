import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

// pg_advisory_lock key for schema changes: any 64-bit constant the deployment does not use elsewhere.
const MIGRATION_LOCK = 7_310_442_001;

/**
 * Runs the pending migrations once before any worker serves: the cluster
 * primary (or the single process) calls it, holding a session advisory lock
 * so that replicas starting together migrate one after the other and the
 * later ones find nothing left to do. Answers how many migrations ran.
 */
export async function migrateDatabase(url: string, { embedded }: { embedded: boolean }): Promise<number> {
  // Every start of an already migrated PostgreSQL database (the usual case) answers here, without TypeORM.
  if (!embedded && (await isCurrent(url))) return 0;
  const [{ DataSource }, { dataSourceOptions }] = await Promise.all([
    import('typeorm'),
    import('./data-source-options.js'),
  ]);
  // The embedded database serves one process (its data directory is locked) and one connection.
  // Migrations are plain SQL: without entities, no entity file is loaded nor any metadata built.
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: embedded ? 1 : 2 }),
    entities: [],
  });
  await dataSource.initialize();
  if (embedded) {
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).length;
    } finally {
      await dataSource.destroy();
    }
  }
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.length;
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

/** The timestamps of the migrations this build ships (their file names start with it). */
function shippedMigrations(): string[] {
  return readdirSync(join(__dirname, 'migrations'))
    .filter((file) => /^\d+-[^.]+\.(js|ts)$/.test(file))
    .map((file) => file.slice(0, file.indexOf('-')));
}

/** True when every shipped migration is recorded as applied: one query, no lock (nothing to write). */
async function isCurrent(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ timestamp: string }>(
      'SELECT "timestamp"::text FROM schema_migrations',
    );
    const applied = new Set(rows.map((row) => row.timestamp));
    return shippedMigrations().every((timestamp) => applied.has(timestamp));
  } catch {
    // No migrations table yet: a new database, migrated the ordinary way.
    return false;
  } finally {
    await client.end();
  }
}
