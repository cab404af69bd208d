// The DataSource of the TypeORM CLI (`npm run typeorm -- migration:generate ...`); it only talks to a real PostgreSQL.
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

export default new DataSource(
  dataSourceOptions({
    url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/verity',
    poolSize: 2,
  }),
);
