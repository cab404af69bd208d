import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

// pg_advisory_lock key for schema changes: any 64-bit constant the deployment does not use elsewhere.
const MIGRATION_LOCK = 7_310_442_001;

/**
 * Runs the pending migrations once before any worker serves: the cluster
 * primary (or the single process) calls it, holding a session advisory lock
 * so that replicas starting together migrate one after the other and the
 * later ones find nothing left to do. Answers how many migrations ran.
 */
export async function migrateDatabase(url: string, { embedded }: { embedded: boolean }): Promise<number> {
  // The embedded database serves one process (its data directory is locked) and one connection.
  const dataSource = new DataSource(dataSourceOptions({ url, poolSize: embedded ? 1 : 2 }));
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
