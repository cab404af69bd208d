import { FieldError, ValidationFailed } from '../../common/errors/domain-error';
import { findColumn, SourceColumn, SourceTable } from '../connectors/source-catalog.service';
import { USER_DB_LIMITS } from '../connectors/user-database.client';

export const FILTER_OPS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'not_in',
  'like',
  'is_null',
  'is_not_null',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const AGGREGATE_FNS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const DEFAULT_LIMIT = 100;
/** The connectors' row cap: no query answers more. */
export const MAX_LIMIT = USER_DB_LIMITS.rowCap;
export const MAX_PIVOT_VALUES = 50;
export const MAX_IN_VALUES = 1_000;

/** A visual query as decided (docs/decisions.md#visual-query), after DTO validation. */
export interface VisualQuery {
  table: string;
  columns?: string[];
  filters?: { column: string; op: FilterOp; value?: unknown }[];
  group_by?: string[];
  aggregations?: { fn: AggregateFn; column?: string; alias?: string }[];
  order_by?: { column: string; direction?: 'asc' | 'desc' }[];
  limit?: number;
  pivot?: { rows: string[]; column: string; value: string; aggregate: AggregateFn };
}

export interface OutputColumn {
  name: string;
  type: string;
}

/** One statement: SQL made of catalog identifiers (quoted) and placeholders, with its bound values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

export interface CompiledQuery extends Statement {
  columns: OutputColumn[];
  /** Rows to answer at most; the statement asks for one more, to tell `truncated`. */
  limit: number;
}

export type CompiledPlan =
  | { kind: 'rows'; query: CompiledQuery }
  | {
      kind: 'pivot';
      /** The distinct pivot values (as text, sorted, nulls left out), at most MAX_PIVOT_VALUES + 1. */
      values: Statement;
      /** The pivot query once the values are known. */
      build: (values: string[]) => CompiledQuery;
    };

const COMPARISONS: Partial<Record<FilterOp, string>> = {
  eq: '=',
  ne: '<>',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
};

const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Placeholders numbered in order of use. */
class Params {
  readonly values: unknown[] = [];

  bind(value: unknown): string {
    this.values.push(typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);
    return `$${this.values.length}`;
  }
}

/**
 * Compiles a visual query to SQL against a table resolved from the source's
 * own catalog. Every identifier in the SQL is a catalog name, quoted;
 * every value is a bound parameter; aliases never reach the SQL (output
 * columns are addressed by position). Names the table does not have, and
 * shapes docs/decisions.md#visual-query does not allow, are a 422 naming the field.
 */
export function compileQuery(query: VisualQuery, table: SourceTable): CompiledPlan {
  const errors: FieldError[] = [];
  const column = (name: string, field: string): SourceColumn | null => {
    const found = findColumn(table, name);
    if (!found) errors.push({ field, message: `Column ${name} was not found in table ${table.display}.` });
    return found;
  };
  const fail = () => {
    if (errors.length) throw new ValidationFailed(errors);
  };
  const limit = query.limit ?? DEFAULT_LIMIT;
  const filters = compileFilters(query.filters ?? [], column, errors);
  const aggregations = query.aggregations ?? [];
  const groupBy = query.group_by ?? [];

  if (query.pivot) {
    if (query.columns?.length || groupBy.length || aggregations.length) {
      errors.push({
        field: 'query.pivot',
        message: 'pivot cannot be combined with columns, group_by or aggregations: its rows are pivot.rows.',
      });
    }
    const pivot = query.pivot;
    const rows = pivot.rows.map((name, i) => column(name, `query.pivot.rows.${i}`));
    const pivotColumn = column(pivot.column, 'query.pivot.column');
    const value = column(pivot.value, 'query.pivot.value');
    if (value) aggregateErrors(pivot.aggregate, value, 'query.pivot.aggregate', errors);
    const order = (query.order_by ?? []).map((o, i) => {
      const index = rows.findIndex((r) => r !== null && r === findColumn(table, o.column));
      if (index < 0) {
        errors.push({
          field: `query.order_by.${i}.column`,
          message: 'With a pivot, order_by names pivot.rows columns.',
        });
      }
      return `${index + 1} ${direction(o.direction)}`;
    });
    fail();
    const rowColumns = rows as SourceColumn[];
    const pc = `CAST(${(pivotColumn as SourceColumn).quoted} AS text)`;
    const valuesParams = new Params();
    const valuesWhere = where([...filters.map((f) => f(valuesParams)), `${pc} IS NOT NULL`]);
    const values: Statement = {
      sql: `SELECT DISTINCT ${pc} COLLATE "C" AS v FROM ${table.quoted}${valuesWhere} ORDER BY 1 LIMIT ${MAX_PIVOT_VALUES + 1}`,
      params: valuesParams.values,
    };
    const build = (pivotValues: string[]): CompiledQuery => {
      const params = new Params();
      const conditions = filters.map((f) => f(params));
      const cells = pivotValues.map((v) =>
        pivotCell(pivot.aggregate, (value as SourceColumn).quoted, pc, params.bind(v)),
      );
      const keys = rowColumns.map((r) => r.quoted).join(', ');
      const orderBy = order.length ? order : rowColumns.map((_, i) => `${i + 1} ASC`);
      return {
        sql:
          `SELECT ${[keys, ...cells].join(', ')} FROM ${table.quoted}${where(conditions)}` +
          ` GROUP BY ${keys} ORDER BY ${orderBy.join(', ')} LIMIT ${params.bind(limit + 1)}`,
        params: params.values,
        columns: [
          ...rowColumns.map((r) => ({ name: r.name, type: r.type })),
          ...pivotValues.map((v) => ({
            name: v,
            type: aggregateType(pivot.aggregate, value as SourceColumn),
          })),
        ],
        limit,
      };
    };
    return { kind: 'pivot', values, build };
  }

  const params = new Params();
  const conditions = filters.map((f) => f(params));
  if (aggregations.length || groupBy.length) {
    const keys = groupBy.map((name, i) => column(name, `query.group_by.${i}`));
    (query.columns ?? []).forEach((name, i) => {
      const found = findColumn(table, name);
      if (found && !keys.includes(found)) {
        errors.push({
          field: `query.columns.${i}`,
          message:
            'With group_by or aggregations, the columns answered are the group_by columns then the aggregations.',
        });
      }
    });
    const outputs: OutputColumn[] = [];
    const selects: string[] = [];
    keys.forEach((k) => {
      if (!k) return;
      outputs.push({ name: k.name, type: k.type });
      selects.push(k.quoted);
    });
    aggregations.forEach((a, i) => {
      const field = `query.aggregations.${i}`;
      if (a.fn === 'count') {
        if (a.column !== undefined) {
          errors.push({
            field: `${field}.column`,
            message: 'count counts rows and takes no column (count_distinct takes one).',
          });
        }
        outputs.push({ name: a.alias ?? 'count', type: 'bigint' });
        selects.push('count(*)');
        return;
      }
      if (a.column === undefined) {
        errors.push({ field: `${field}.column`, message: `${a.fn} needs a column.` });
        return;
      }
      const target = column(a.column, `${field}.column`);
      if (!target) return;
      aggregateErrors(a.fn, target, `${field}.fn`, errors);
      outputs.push({ name: a.alias ?? `${a.fn}_${target.name}`, type: aggregateType(a.fn, target) });
      selects.push(aggregateSql(a.fn, target.quoted));
    });
    const names = outputs.map((o) => o.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) {
        errors.push({
          field: 'query.aggregations',
          message: `Two answered columns would be named ${name}: give an alias.`,
        });
      }
    });
    const order = (query.order_by ?? []).map((o, i) => {
      let index = names.indexOf(o.column);
      if (index < 0) {
        const found = findColumn(table, o.column);
        index = found ? keys.indexOf(found) : -1;
      }
      if (index < 0) {
        errors.push({
          field: `query.order_by.${i}.column`,
          message: `${o.column} is not an answered column (a group_by column or an aggregation alias).`,
        });
      }
      return `${index + 1} ${direction(o.direction)}`;
    });
    fail();
    const keyList = (keys as SourceColumn[]).map((k) => k.quoted).join(', ');
    return {
      kind: 'rows',
      query: {
        sql:
          `SELECT ${selects.join(', ')} FROM ${table.quoted}${where(conditions)}` +
          (keyList ? ` GROUP BY ${keyList}` : '') +
          (order.length ? ` ORDER BY ${order.join(', ')}` : '') +
          ` LIMIT ${params.bind(limit + 1)}`,
        params: params.values,
        columns: outputs,
        limit,
      },
    };
  }

  const selected = query.columns?.length
    ? query.columns.map((name, i) => column(name, `query.columns.${i}`))
    : table.columns;
  const order = (query.order_by ?? []).map((o, i) => {
    const found = column(o.column, `query.order_by.${i}.column`);
    return found ? `${found.quoted} ${direction(o.direction)}` : '';
  });
  fail();
  const chosen = selected as SourceColumn[];
  return {
    kind: 'rows',
    query: {
      sql:
        `SELECT ${chosen.map((c) => c.quoted).join(', ')} FROM ${table.quoted}${where(conditions)}` +
        (order.length ? ` ORDER BY ${order.join(', ')}` : '') +
        ` LIMIT ${params.bind(limit + 1)}`,
      params: params.values,
      columns: chosen.map((c) => ({ name: c.name, type: c.type })),
      limit,
    },
  };
}

type Condition = (params: Params) => string;

function compileFilters(
  filters: NonNullable<VisualQuery['filters']>,
  column: (name: string, field: string) => SourceColumn | null,
  errors: FieldError[],
): Condition[] {
  const conditions: Condition[] = [];
  filters.forEach((f, i) => {
    const field = `query.filters.${i}`;
    const before = errors.length;
    const target = column(f.column, `${field}.column`);
    const valueError = (message: string) => errors.push({ field: `${field}.value`, message });
    const { op, value } = f;
    if (op === 'is_null' || op === 'is_not_null') {
      if (value !== undefined) valueError(`${op} takes no value.`);
    } else if (op === 'in' || op === 'not_in') {
      if (!Array.isArray(value) || !value.length || value.length > MAX_IN_VALUES || !value.every(isScalar)) {
        valueError(`${op} takes a list of 1 to ${MAX_IN_VALUES} strings, numbers or booleans.`);
      }
    } else if (op === 'like') {
      if (typeof value !== 'string') valueError('like takes a string pattern (% and _ are wildcards).');
    } else if (!isScalar(value)) {
      valueError(`${op} takes a string, a number or a boolean (use is_null for nulls).`);
    }
    // Nothing is built from a filter that failed: the whole query is refused anyway.
    if (!target || errors.length > before) return;
    const c = target.quoted;
    conditions.push((params) => {
      switch (op) {
        case 'is_null':
          return `${c} IS NULL`;
        case 'is_not_null':
          return `${c} IS NOT NULL`;
        case 'in':
          return `${c} = ANY(${params.bind((value as unknown[]).map(String))})`;
        case 'not_in':
          return `${c} <> ALL(${params.bind((value as unknown[]).map(String))})`;
        case 'like':
          return `CAST(${c} AS text) LIKE ${params.bind(value)}`;
        default:
          return `${c} ${COMPARISONS[op]} ${params.bind(value)}`;
      }
    });
  });
  return conditions;
}

const where = (conditions: string[]) => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');
const direction = (d: string | undefined) => (d === 'desc' ? 'DESC' : 'ASC');

function aggregateSql(fn: AggregateFn, quoted: string): string {
  switch (fn) {
    case 'count':
      return 'count(*)';
    case 'count_distinct':
      return `count(DISTINCT ${quoted})`;
    default:
      return `${fn}(${quoted})`;
  }
}

/** A pivot cell: the aggregate over the rows with that pivot value, null when there are none. */
function pivotCell(fn: AggregateFn, value: string, pivotText: string, placeholder: string): string {
  const only = `FILTER (WHERE ${pivotText} = ${placeholder})`;
  switch (fn) {
    case 'count':
      return `NULLIF(count(*) ${only}, 0)`;
    case 'count_distinct':
      return `CASE WHEN count(*) ${only} > 0 THEN count(DISTINCT ${value}) ${only} END`;
    default:
      return `${fn}(${value}) ${only}`;
  }
}

function aggregateErrors(fn: AggregateFn, target: SourceColumn, field: string, errors: FieldError[]): void {
  // Numbers (N) and intervals (T) can be summed and averaged.
  if ((fn === 'sum' || fn === 'avg') && target.category !== 'N' && target.category !== 'T') {
    errors.push({ field, message: `${fn} needs a numeric column; ${target.name} is ${target.type}.` });
  }
}

const baseType = (type: string) =>
  type
    .replace(/\(.*\)/, '')
    .replace(/\[\]$/, '')
    .trim();

/** The type PostgreSQL gives the aggregate, named as format_type would. */
export function aggregateType(fn: AggregateFn, target: SourceColumn): string {
  const base = baseType(target.type);
  switch (fn) {
    case 'count':
    case 'count_distinct':
      return 'bigint';
    case 'min':
    case 'max':
      return target.type;
    case 'sum':
      if (base === 'smallint' || base === 'integer') return 'bigint';
      if (base === 'real' || base === 'double precision' || base === 'interval' || base === 'money')
        return base;
      return 'numeric';
    case 'avg':
      if (base === 'real' || base === 'double precision') return 'double precision';
      if (base === 'interval') return 'interval';
      return 'numeric';
  }
}
