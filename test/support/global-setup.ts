import { hash } from '@node-rs/argon2';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres';
import {
  ROOT_EMAIL,
  ROOT_PASSWORD,
  TEMPLATE_EMPTY,
  TEMPLATE_SEEDED,
  cloneDatabase,
  databaseUrl,
  withServer,
  workerDatabase,
} from './database';

const WORKERS = 4;

async function migrateAndSeed(url: string, seed: boolean): Promise<void> {
  const dataSource = new DataSource(dataSourceOptions({ url, poolSize: 1 }));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    if (seed) {
      await dataSource.query(
        `INSERT INTO users (email, password_hash, first_name, last_name, is_superadmin) VALUES ($1, $2, 'Root', 'Admin', true)`,
        [ROOT_EMAIL, await hash(ROOT_PASSWORD, { algorithm: 2 })],
      );
    }
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Migrates the schema once, seeds a superadmin, and gives every jest worker
 * its own clone. With E2E_EMBEDDED=1 the suite instead runs on one in-memory
 * PGlite started here, in the outer process, and reached over its socket.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.E2E_EMBEDDED === '1') {
    const embedded = await EmbeddedPostgres.start('memory://');
    (globalThis as { __embedded?: EmbeddedPostgres }).__embedded = embedded;
    await migrateAndSeed(embedded.url, true);
    process.env.E2E_DATABASE_URL = embedded.url;
    return;
  }
  await withServer(async (client) => {
    for (const name of [TEMPLATE_SEEDED, TEMPLATE_EMPTY]) {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${name}`);
    }
  });
  await migrateAndSeed(databaseUrl(TEMPLATE_EMPTY), false);
  await migrateAndSeed(databaseUrl(TEMPLATE_SEEDED), true);
  for (let worker = 1; worker <= WORKERS; worker++) {
    await cloneDatabase(TEMPLATE_SEEDED, workerDatabase(worker));
  }
}
