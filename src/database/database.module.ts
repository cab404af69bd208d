import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseConnection, dataSourceOptions } from './data-source-options';
import { InstanceDatabases } from './instance-databases.registry';
import { DATABASE_SESSION_SHARED, PreparedQueries } from './prepared-queries.runner';
import { routingDataSource } from './routing-data-source';
import { TransactionRunner } from './transaction.runner';

export interface DatabaseModuleOptions extends DatabaseConnection {
  /** Migrations run at start unless a caller (tests) already migrated the database. */
  migrationsRun: boolean;
  /** The embedded database: all connections share one session. */
  embedded: boolean;
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions({ url: options.url, poolSize: options.poolSize, extra: options.extra }),
            migrationsRun: options.migrationsRun,
            // Entities come from the glob in dataSourceOptions; modules still
            // declare theirs with forFeature to get repositories.
            autoLoadEntities: false,
            retryAttempts: 2,
            retryDelay: 500,
          }),
          // What every module injects follows the request's instance (routing-data-source.ts).
          dataSourceFactory: async (dataSourceOptions) =>
            routingDataSource(await new DataSource(dataSourceOptions!).initialize()),
        }),
      ],
      providers: [
        TransactionRunner,
        PreparedQueries,
        InstanceDatabases,
        { provide: DATABASE_SESSION_SHARED, useValue: options.embedded },
      ],
      exports: [TransactionRunner, PreparedQueries, InstanceDatabases],
    };
  }
}
