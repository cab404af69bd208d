import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseConnection {
  url: string;
  poolSize: number;
  /** Extra `pg` pool options, for example a search_path in tests. */
  extra?: Record<string, unknown>;
}

/**
 * The one place that turns a connection into TypeORM options, shared by the
 * app, the TypeORM CLI (ormconfig.ts) and the tests. Entities and migrations
 * are found by file name so that each module owns its own files.
 */
export function dataSourceOptions(connection: DatabaseConnection): DataSourceOptions {
  return {
    type: 'postgres',
    url: connection.url,
    poolSize: connection.poolSize,
    entities: [join(__dirname, '..', '**', '*.entity.{ts,js}')],
    migrations: [join(__dirname, 'migrations', '*.{ts,js}')],
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    synchronize: false,
    // A pool of one (embedded database) must fail, not hang, when a query is
    // issued outside the transaction that holds the only connection.
    extra: { connectionTimeoutMillis: 5000, ...connection.extra },
  };
}
