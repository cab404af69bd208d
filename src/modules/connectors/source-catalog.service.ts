import { Injectable } from '@nestjs/common';
import { LruCache } from '../../common/cache/lru-cache';
import type { ReadOnlySession } from './user-database.client';

/** A column of a source table as its own catalog describes it. */
export interface SourceColumn {
  name: string;
  /** `format_type` of the column, e.g. `numeric(12,2)`, `timestamp with time zone`. */
  type: string;
  nullable: boolean;
  /** pg_type.typcategory: `N` numeric, `S` string, `D` date/time, `B` boolean, `T` interval, ... */
  category: string;
  /** The name as a double-quoted SQL identifier. */
  quoted: string;
}

/** A table (or view) of a source database, resolved against that database's catalog. */
export interface SourceTable {
  schema: string;
  name: string;
  /** `"schema"."name"`, safe to put in SQL. */
  quoted: string;
  /** `schema.name` as the catalog spells it, for messages. */
  display: string;
  /** In table order. */
  columns: SourceColumn[];
}

/** One part of a table reference: `"Exact Name"` (quoted) or a bare name. */
export interface NamePart {
  text: string;
  quoted: boolean;
}

export interface TableReference {
  schema: NamePart | null;
  table: NamePart;
}

/** A double-quoted identifier: any name, with `"` doubled, can only ever be a name. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Parses `table`, `schema.table`, `public."Odd Name"` or `"my.schema"."T"`:
 * at most two dot-separated parts, each either double-quoted (`""` for a
 * quote; matched exactly) or bare (trimmed; matched exactly, else
 * case-insensitively when that is unambiguous). Null when malformed.
 */
export function parseTableReference(raw: string): TableReference | null {
  if (raw.includes('\u0000')) return null;
  const parts: NamePart[] = [];
  let i = 0;
  for (;;) {
    if (raw[i] === '"') {
      let text = '';
      i++;
      for (;;) {
        if (i >= raw.length) return null;
        if (raw[i] === '"') {
          if (raw[i + 1] === '"') {
            text += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += raw[i++];
      }
      if (!text) return null;
      parts.push({ text, quoted: true });
    } else {
      const end = raw.indexOf('.', i);
      const text = raw.slice(i, end === -1 ? raw.length : end).trim();
      if (!text || text.includes('"')) return null;
      parts.push({ text, quoted: false });
      i = end === -1 ? raw.length : end;
    }
    if (i >= raw.length) break;
    if (raw[i] !== '.') return null;
    i++;
  }
  if (parts.length > 2) return null;
  return parts.length === 2 ? { schema: parts[0], table: parts[1] } : { schema: null, table: parts[0] };
}

/** The one candidate matching `part`: exactly, else (bare parts only) case-insensitively and unambiguously. */
function pick<T>(candidates: T[], part: NamePart, nameOf: (c: T) => string): T[] {
  const exact = candidates.filter((c) => nameOf(c) === part.text);
  if (exact.length || part.quoted) return exact;
  const folded = part.text.toLowerCase();
  return candidates.filter((c) => nameOf(c).toLowerCase() === folded);
}

/** The column named `name` (exactly, else case-insensitively when unambiguous), or null. */
export function findColumn(table: SourceTable, name: string): SourceColumn | null {
  const found = pick(table.columns, { text: name, quoted: false }, (c) => c.name);
  return found.length === 1 ? found[0] : null;
}

interface CatalogRow {
  schema: string;
  name: string;
  visible: boolean;
  column: string | null;
  type: string | null;
  nullable: boolean | null;
  category: string | null;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 1_000;

/**
 * Resolves table and column names against the source database's own catalog
 * (pg_catalog, as the connecting role sees it), so that identifiers are
 * never taken from the caller: only names that exist are used, and they are
 * quoted. System schemas (`pg_catalog`, `information_schema`, `pg_*`) are
 * not offered. A table without a schema is looked up on the role's
 * `search_path`. Found tables may be cached briefly per caller-chosen key
 * (a connector id): a table created since is found at once, a dropped or
 * altered one is noticed within 30 seconds.
 */
@Injectable()
export class SourceCatalog {
  private readonly cache = new LruCache<SourceTable>({ capacity: CACHE_MAX, ttlMs: CACHE_TTL_MS });

  async resolveTable(
    session: ReadOnlySession,
    raw: string,
    options: { cacheKey?: string } = {},
  ): Promise<SourceTable | null> {
    const key = options.cacheKey === undefined ? null : `${options.cacheKey}\u0000${raw}`;
    const hit = key === null ? undefined : this.cache.get(key);
    if (hit) return hit;
    const table = await this.lookup(session, raw);
    if (key && table) this.cache.set(key, table);
    return table;
  }

  private async lookup(session: ReadOnlySession, raw: string): Promise<SourceTable | null> {
    const ref = parseTableReference(raw);
    if (!ref) return null;
    // The exact spelling first (pg_class's name index); the case-insensitive scan only when that finds nothing.
    return (
      this.choose(ref, await this.candidates(session, ref, true)) ??
      this.choose(ref, await this.candidates(session, ref, false))
    );
  }

  private candidates(session: ReadOnlySession, ref: TableReference, exact: boolean): Promise<CatalogRow[]> {
    const names = exact
      ? 'c.relname = $1 AND ($2::text IS NULL OR n.nspname = $2)'
      : 'lower(c.relname) = lower($1) AND ($2::text IS NULL OR lower(n.nspname) = lower($2))';
    return session.query<CatalogRow>(
      `SELECT n.nspname AS schema, c.relname AS name, pg_table_is_visible(c.oid) AS visible,
              a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
              NOT a.attnotnull AS nullable, t.typcategory AS category
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         LEFT JOIN pg_type t ON t.oid = a.atttypid
        WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
          AND ${names}
        ORDER BY n.nspname, c.relname, a.attnum
        LIMIT 20000`,
      [ref.table.text, ref.schema?.text ?? null],
    );
  }

  private choose(ref: TableReference, rows: CatalogRow[]): SourceTable | null {
    const tables = new Map<string, { schema: string; name: string; visible: boolean; rows: CatalogRow[] }>();
    for (const row of rows) {
      const id = `${row.schema}\u0000${row.name}`;
      const entry = tables.get(id) ?? { schema: row.schema, name: row.name, visible: row.visible, rows: [] };
      entry.rows.push(row);
      tables.set(id, entry);
    }
    let candidates = [...tables.values()];
    if (ref.schema) {
      candidates = pick(candidates, ref.schema, (t) => t.schema);
    } else {
      // Unqualified: what the search path shows, as PostgreSQL itself would resolve it.
      candidates = candidates.filter((t) => t.visible);
    }
    candidates = pick(candidates, ref.table, (t) => t.name);
    if (candidates.length !== 1) return null;
    const [found] = candidates;
    return {
      schema: found.schema,
      name: found.name,
      quoted: `${quoteIdent(found.schema)}.${quoteIdent(found.name)}`,
      display: `${found.schema}.${found.name}`,
      columns: found.rows
        .filter((r) => r.column !== null)
        .map((r) => ({
          name: r.column as string,
          type: r.type as string,
          nullable: r.nullable as boolean,
          category: r.category ?? 'X',
          quoted: quoteIdent(r.column as string),
        })),
    };
  }
}
