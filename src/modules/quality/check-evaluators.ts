import { findColumn, SourceTable } from '../connectors/source-catalog.service';
import { USER_DB_LIMITS } from '../connectors/user-database.client';
import type { ReadOnlySession } from '../connectors/user-database.client';
import { expectedColumns } from './check-config';
import type { CheckType, RunStatus } from './entities/check.entity';

export interface Evaluation {
  status: RunStatus;
  observedValue: number | null;
  message: string;
}

export interface EvaluationInput {
  checkType: CheckType;
  config: Record<string, unknown>;
  /** The product's freshness SLA, for freshness checks without their own limit. */
  slaFreshnessMinutes: number | null;
  /** Looks a table up in the source's own catalog (SourceCatalog); null when it is not there. */
  resolveTable: (name: string) => Promise<SourceTable | null>;
}

/** A configured table or column the source does not have: the check cannot be evaluated. */
export class MissingSourceObject extends Error {
  override readonly name = 'MissingSourceObject';
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The configured table, resolved against the source's catalog: only names it holds reach SQL, quoted. */
async function table(input: EvaluationInput): Promise<SourceTable> {
  const name = String(input.config.table);
  const found = await input.resolveTable(name);
  if (!found) {
    throw new MissingSourceObject(
      `Table ${name} was not found in the source database (or the connector's role cannot see it).`,
    );
  }
  return found;
}

function column(found: SourceTable, config: Record<string, unknown>): string {
  const name = String(config.column);
  const resolved = findColumn(found, name);
  if (!resolved) throw new MissingSourceObject(`Column ${name} was not found in table ${found.display}.`);
  return resolved.quoted;
}

/**
 * Evaluates one check on a read-only session of its connector's database.
 * Errors thrown here (a missing table, a timeout) become `error` runs.
 */
export async function evaluateCheck(session: ReadOnlySession, input: EvaluationInput): Promise<Evaluation> {
  const { config } = input;
  switch (input.checkType) {
    case 'sql_assertion':
      return sqlAssertion(session, String(config.sql));
    case 'row_count':
      return rowCount(session, input);
    case 'null_rate':
      return nullRate(session, input);
    case 'freshness':
      return freshness(session, input);
    case 'schema':
      return schema(input);
    case 'custom':
      throw new Error('A custom check takes pushed results; it cannot be run here.');
  }
}

/** Rows the query returns are failures; at most the row cap is fetched. */
async function sqlAssertion(session: ReadOnlySession, sql: string): Promise<Evaluation> {
  // The user's query becomes a subquery: one statement (the extended protocol refuses more), capped.
  const body = sql.trim().replace(/;+\s*$/, '');
  const rows = await session.query(
    `SELECT * FROM (${body}\n) AS verity_assertion LIMIT ${USER_DB_LIMITS.rowCap + 1}`,
  );
  const capped = rows.length > USER_DB_LIMITS.rowCap;
  const count = Math.min(rows.length, USER_DB_LIMITS.rowCap);
  if (!count) return { status: 'passed', observedValue: 0, message: 'The assertion returned no rows.' };
  return {
    status: 'failed',
    observedValue: count,
    message: capped
      ? `The assertion returned more than ${USER_DB_LIMITS.rowCap} failing rows (only that many were read).`
      : `The assertion returned ${plural(count, 'failing row')}.`,
  };
}

async function rowCount(session: ReadOnlySession, input: EvaluationInput): Promise<Evaluation> {
  const { config } = input;
  const name = (await table(input)).quoted;
  let count: number;
  let how: string;
  if (config.approximate === true) {
    // The planner's estimate: no scan. reltuples is -1 before the first VACUUM/ANALYZE; then the
    // statistics collector's live-tuple count stands in.
    const [row] = await session.query<{ found: boolean; reltuples: number | null; live: string | null }>(
      `SELECT c.oid IS NOT NULL AS found, c.reltuples::float8 AS reltuples, s.n_live_tup::text AS live
         FROM (SELECT to_regclass($1) AS oid) r
         LEFT JOIN pg_class c ON c.oid = r.oid
         LEFT JOIN pg_stat_all_tables s ON s.relid = r.oid`,
      [name],
    );
    if (!row?.found)
      throw new MissingSourceObject(`Table ${String(config.table)} does not exist or is not visible.`);
    if (row.reltuples !== null && row.reltuples >= 0) {
      count = Math.round(row.reltuples);
      how = 'estimated from the catalog (pg_class.reltuples)';
    } else {
      count = Number(row.live ?? 0);
      how = 'estimated from the live-tuple statistics (the table was never analysed)';
    }
  } else {
    const [row] = await session.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${name}`);
    count = Number(row.n);
    how = 'counted exactly';
  }
  const min = config.min as number | undefined;
  const max = config.max as number | undefined;
  const bounds = [min !== undefined ? `at least ${min}` : null, max !== undefined ? `at most ${max}` : null]
    .filter(Boolean)
    .join(' and ');
  const ok = (min === undefined || count >= min) && (max === undefined || count <= max);
  return {
    status: ok ? 'passed' : 'failed',
    observedValue: count,
    message: `${plural(count, 'row')} (${how}); expected ${bounds}.`,
  };
}

async function nullRate(session: ReadOnlySession, input: EvaluationInput): Promise<Evaluation> {
  const { config } = input;
  const found = await table(input);
  const [row] = await session.query<{ total: string; nulls: string }>(
    `SELECT count(*)::text AS total, count(*) FILTER (WHERE ${column(found, config)} IS NULL)::text AS nulls FROM ${found.quoted}`,
  );
  const total = Number(row.total);
  const nulls = Number(row.nulls);
  const rate = total ? nulls / total : 0;
  const maxRate = config.max_rate as number;
  return {
    status: rate <= maxRate ? 'passed' : 'failed',
    observedValue: rate,
    message: `${plural(nulls, 'null')} in ${plural(total, 'row')} (rate ${rate.toFixed(4)}); the limit is ${maxRate}.`,
  };
}

async function freshness(session: ReadOnlySession, input: EvaluationInput): Promise<Evaluation> {
  const { config, slaFreshnessMinutes: slaMinutes } = input;
  const found = await table(input);
  const [row] = await session.query<{ age_minutes: number | null }>(
    `SELECT EXTRACT(EPOCH FROM (now() - max(${column(found, config)})::timestamptz))::float8 / 60 AS age_minutes FROM ${found.quoted}`,
  );
  const age = row.age_minutes === null ? null : Math.max(0, Math.round(row.age_minutes * 100) / 100);
  const own = config.max_age_minutes as number | null | undefined;
  const limit = own ?? slaMinutes;
  if (limit === null || limit === undefined) {
    // No limit anywhere is "no limit": the check passes and says so (never an error).
    return {
      status: 'passed',
      observedValue: age,
      message:
        (age === null ? 'The table has no rows. ' : `The newest row is ${age} minutes old. `) +
        'No freshness limit is set (neither max_age_minutes nor the product SLA), so any age passes.',
    };
  }
  const source = own !== null && own !== undefined ? 'max_age_minutes' : "the product's SLA";
  if (age === null) {
    return {
      status: 'failed',
      observedValue: null,
      message: `The table has no rows; the limit is ${limit} minutes (${source}).`,
    };
  }
  return {
    status: age <= limit ? 'passed' : 'failed',
    observedValue: age,
    message: `The newest row is ${age} minutes old; the limit is ${limit} minutes (${source}).`,
  };
}

/** A table that is gone, or has no columns, is schema drift: a failure, not an error. */
async function schema(input: EvaluationInput): Promise<Evaluation> {
  const { config } = input;
  const found = await input.resolveTable(String(config.table));
  const rows = (found?.columns ?? []).map((c) => ({ name: c.name, type: c.type, not_null: !c.nullable }));
  if (!rows.length) {
    return {
      status: 'failed',
      observedValue: null,
      message: `Table ${String(config.table)} was not found (or has no columns).`,
    };
  }
  const actual = new Map(rows.map((r) => [r.name, r]));
  const problems: string[] = [];
  const expected = expectedColumns(config);
  for (const column of expected) {
    const found = actual.get(column.name);
    if (!found) {
      problems.push(`missing column ${column.name}`);
      continue;
    }
    if (column.type && !sameType(column.type, found.type)) {
      problems.push(`${column.name} is ${found.type}, expected ${column.type}`);
    }
    if (column.nullable !== undefined && column.nullable === found.not_null) {
      problems.push(`${column.name} is ${found.not_null ? 'NOT NULL' : 'nullable'}`);
    }
  }
  if (config.allow_extra_columns === false) {
    const names = new Set(expected.map((c) => c.name));
    for (const r of rows) if (!names.has(r.name)) problems.push(`unexpected column ${r.name}`);
  }
  if (!problems.length) {
    return {
      status: 'passed',
      observedValue: 0,
      message: `All ${plural(expected.length, 'expected column')} match.`,
    };
  }
  return {
    status: 'failed',
    observedValue: problems.length,
    message: `Schema differs: ${problems.join('; ')}.`,
  };
}

const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  int2: 'smallint',
  float8: 'double precision',
  float4: 'real',
  bool: 'boolean',
  varchar: 'character varying',
  timestamptz: 'timestamp with time zone',
  timestamp: 'timestamp without time zone',
  decimal: 'numeric',
};

/** Type names compared loosely: case, common aliases, and a bare name matching a parameterised one. */
export function sameType(expected: string, actual: string): boolean {
  const norm = (t: string) => {
    const lower = t.trim().toLowerCase().replace(/\s+/g, ' ');
    return TYPE_ALIASES[lower] ?? lower;
  };
  const e = norm(expected);
  const a = norm(actual);
  return e === a || (!e.includes('(') && a.replace(/\(.*\)/, '') === e);
}
