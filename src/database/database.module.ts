import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseConnection, dataSourceOptions } from './data-source-options';
import { TransactionRunner } from './transaction-runner';

export interface DatabaseModuleOptions extends DatabaseConnection {
  /** Migrations run at start unless a caller (tests) already migrated the database. */
  migrationsRun: boolean;
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(options),
          migrationsRun: options.migrationsRun,
          // Entities come from the glob in dataSourceOptions; modules still
          // declare theirs with forFeature to get repositories.
          autoLoadEntities: false,
          retryAttempts: 2,
          retryDelay: 500,
        }),
      ],
      providers: [TransactionRunner],
      exports: [TransactionRunner],
    };
  }
}
