import type { DatasetInput } from '../catalog/products.service';
import type { ReadOnlySession } from './user-database.client';

/** Tables one sync takes at most (the row cap of catalog reads). */
export const MAX_TABLES = 2_000;
/** Columns read per sync at most. */
export const MAX_COLUMNS = 100_000;

export interface HarvestedColumn {
  name: string;
  type: string;
  nullable: boolean;
  position: number;
}

export interface HarvestedTable {
  schema: string;
  table: string;
  kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';
  rowEstimate: number | null;
  comment: string | null;
  columns: HarvestedColumn[];
}

interface TableRow {
  schema: string;
  table: string;
  relkind: string;
  reltuples: number | string | null;
  comment: string | null;
}

interface ColumnRow {
  schema: string;
  table: string;
  name: string;
  type: string;
  not_null: boolean;
  position: number;
}

const KIND: Record<string, HarvestedTable['kind']> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
};

/** The server version a connection test reports. */
export async function serverVersion(session: ReadOnlySession): Promise<string> {
  const [row] = await session.query<{ version: string }>(
    `SELECT current_setting('server_version') AS version`,
  );
  return row.version;
}

/**
 * Reads the tables, views and their columns of every non-system schema from
 * pg_catalog (what the connecting role can see), with the planner's row
 * estimate (`reltuples`, -1 meaning "never analysed" becomes null).
 */
export async function harvestTables(session: ReadOnlySession): Promise<HarvestedTable[]> {
  const tables = await session.query<TableRow>(
    `SELECT n.nspname AS schema, c.relname AS table, c.relkind, c.reltuples, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
        AND has_schema_privilege(n.oid, 'USAGE')
      ORDER BY n.nspname, c.relname
      LIMIT $1`,
    [MAX_TABLES],
  );
  if (!tables.length) return [];
  const columns = await session.query<ColumnRow>(
    `SELECT n.nspname AS schema, c.relname AS table, a.attname AS name,
            format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, a.attnum AS position
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE a.attnum > 0 AND NOT a.attisdropped
        AND (n.nspname::text, c.relname::text) IN (SELECT * FROM unnest($1::text[], $2::text[]))
      ORDER BY n.nspname, c.relname, a.attnum
      LIMIT $3`,
    [tables.map((t) => t.schema), tables.map((t) => t.table), MAX_COLUMNS],
  );
  return assembleTables(tables, columns);
}

export function assembleTables(tables: TableRow[], columns: ColumnRow[]): HarvestedTable[] {
  const byTable = new Map<string, HarvestedColumn[]>();
  for (const column of columns) {
    const key = `${column.schema}\u0000${column.table}`;
    const list = byTable.get(key) ?? [];
    list.push({
      name: column.name,
      type: column.type,
      nullable: !column.not_null,
      position: Number(column.position),
    });
    byTable.set(key, list);
  }
  return tables.map((table) => {
    const estimate = table.reltuples === null ? null : Number(table.reltuples);
    return {
      schema: table.schema,
      table: table.table,
      kind: KIND[table.relkind] ?? 'table',
      rowEstimate: estimate === null || estimate < 0 ? null : Math.round(estimate),
      comment: table.comment,
      columns: byTable.get(`${table.schema}\u0000${table.table}`) ?? [],
    };
  });
}

/** The product name of a table: the bare name in `public`, `schema.table` elsewhere. */
export function productNameOf(table: Pick<HarvestedTable, 'schema' | 'table'>): string {
  return table.schema === 'public' ? table.table : `${table.schema}.${table.table}`;
}

/** What a sync writes on the table's `dataset` product. */
export function datasetInput(
  table: HarvestedTable,
  connector: { id: string; name: string; host: string; port: number; databaseName: string },
  syncedAt: Date,
): DatasetInput {
  return {
    name: productNameOf(table),
    identity: openLineageIdentity(connector, table),
    ...(table.comment ? { description: table.comment } : {}),
    attributes: {
      schema: {
        source_schema: table.schema,
        source_table: table.table,
        table_type: table.kind,
        row_estimate: table.rowEstimate,
        columns: table.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
      },
      source: {
        connector_id: connector.id,
        connector_name: connector.name,
        synced_at: syncedAt.toISOString(),
      },
    },
  };
}

/**
 * The table's dataset identity by OpenLineage's naming convention for
 * PostgreSQL (https://openlineage.io/docs/spec/naming): namespace
 * `postgres://{host}:{port}`, name `{database}.{schema}.{table}`.
 */
export function openLineageIdentity(
  connector: { host: string; port: number; databaseName: string },
  table: Pick<HarvestedTable, 'schema' | 'table'>,
): { namespace: string; name: string } {
  return {
    namespace: `postgres://${connector.host.toLowerCase()}:${connector.port}`,
    name: `${connector.databaseName}.${table.schema}.${table.table}`,
  };
}
