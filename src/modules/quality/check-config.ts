import type { FieldError } from '../../common/errors/domain-error';
import { parseTableReference } from '../connectors/source-catalog.service';
import type { CheckType } from './entities/check.entity';

/**
 * Check configurations, validated and normalised per check type. Table and
 * column names are names, never SQL: `table` is `table`, `schema.table` or
 * with quoted parts (`public."Odd Name"`), and both are resolved against the
 * source's own catalog (SourceCatalog) before use, which quotes them; a name
 * the catalog does not hold is never put in SQL. Only `sql_assertion` runs
 * SQL the user wrote, by design, and only read-only with a timeout and a
 * row cap.
 */
export interface ExpectedColumn {
  name: string;
  type?: string;
  nullable?: boolean;
}

export type CheckConfig =
  | { sql: string; timeout_seconds?: number }
  | { table: string; min?: number; max?: number; approximate?: boolean; timeout_seconds?: number }
  | { table: string; column: string; max_rate: number; timeout_seconds?: number }
  | { table: string; column: string; max_age_minutes?: number | null; timeout_seconds?: number }
  | {
      table: string;
      expected_columns: ExpectedColumn[];
      allow_extra_columns?: boolean;
      timeout_seconds?: number;
    }
  | Record<string, unknown>;

/** A column name as the source spells it (PostgreSQL names are at most 63 bytes). */
function isColumnName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 63 && !value.includes('\u0000');
}

const ALLOWED_KEYS: Record<CheckType, string[] | null> = {
  sql_assertion: ['sql', 'timeout_seconds'],
  row_count: ['table', 'min', 'max', 'approximate', 'timeout_seconds'],
  null_rate: ['table', 'column', 'max_rate', 'timeout_seconds'],
  freshness: ['table', 'column', 'max_age_minutes', 'timeout_seconds'],
  schema: ['table', 'expected_columns', 'allow_extra_columns', 'timeout_seconds'],
  custom: null,
};

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The errors of a configuration (fields named `config.<key>`); empty when valid. */
export function checkConfigErrors(type: CheckType, config: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (key: string, message: string) => errors.push({ field: `config.${key}`, message });
  const allowed = ALLOWED_KEYS[type];
  if (!allowed) return errors; // custom: free-form, results are pushed
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) fail(key, `${key} is not a setting of a ${type} check.`);
  }
  const table = (key = 'table') => {
    const value = config[key];
    if (typeof value !== 'string' || value.length > 300 || !parseTableReference(value)) {
      fail(
        key,
        `${key} must be a table name: \`table\`, \`schema.table\` or with quoted parts, \`public."Odd Name"\`.`,
      );
    }
  };
  const column = () => {
    const value = config.column;
    if (!isColumnName(value)) fail('column', 'column must be a column name of 1 to 63 characters.');
  };
  if (
    'timeout_seconds' in config &&
    !(isInt(config.timeout_seconds) && config.timeout_seconds >= 1 && config.timeout_seconds <= 10)
  ) {
    fail('timeout_seconds', 'timeout_seconds must be a whole number from 1 to 10.');
  }
  switch (type) {
    case 'sql_assertion': {
      const sql = config.sql;
      if (typeof sql !== 'string' || !sql.trim() || sql.length > 20_000) {
        fail('sql', 'sql must be a non-empty query of at most 20,000 characters.');
      }
      break;
    }
    case 'row_count': {
      table();
      const { min, max } = config;
      if (min === undefined && max === undefined) fail('min', 'A row_count check needs min, max or both.');
      if (min !== undefined && !(isInt(min) && min >= 0))
        fail('min', 'min must be a whole number, 0 or more.');
      if (max !== undefined && !(isInt(max) && max >= 0))
        fail('max', 'max must be a whole number, 0 or more.');
      if (isInt(min) && isInt(max) && min > max) fail('max', 'max must not be below min.');
      if (config.approximate !== undefined && typeof config.approximate !== 'boolean') {
        fail('approximate', 'approximate must be true or false.');
      }
      break;
    }
    case 'null_rate': {
      table();
      column();
      const rate = config.max_rate;
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
        fail('max_rate', 'max_rate must be a fraction from 0 to 1.');
      }
      break;
    }
    case 'freshness': {
      table();
      column();
      const age = config.max_age_minutes;
      if (age !== undefined && age !== null && !(isInt(age) && age >= 1)) {
        fail('max_age_minutes', 'max_age_minutes must be a whole number of minutes, 1 or more, or null.');
      }
      break;
    }
    case 'schema': {
      table();
      const expected = config.expected_columns;
      if (!Array.isArray(expected) || !expected.length || expected.length > 500) {
        fail('expected_columns', 'expected_columns must list 1 to 500 columns.');
      } else {
        expected.forEach((entry, i) => {
          const item = typeof entry === 'string' ? { name: entry } : entry;
          const ok =
            item &&
            typeof item === 'object' &&
            typeof item.name === 'string' &&
            item.name.length > 0 &&
            item.name.length <= 63 &&
            (item.type === undefined || (typeof item.type === 'string' && item.type.length <= 200)) &&
            (item.nullable === undefined || typeof item.nullable === 'boolean') &&
            Object.keys(item).every((k) => ['name', 'type', 'nullable'].includes(k));
          if (!ok) {
            fail(`expected_columns[${i}]`, 'Each expected column is a name, or {name, type?, nullable?}.');
          }
        });
      }
      if (config.allow_extra_columns !== undefined && typeof config.allow_extra_columns !== 'boolean') {
        fail('allow_extra_columns', 'allow_extra_columns must be true or false.');
      }
      break;
    }
  }
  return errors;
}

/** Expected columns in their object form. */
export function expectedColumns(config: Record<string, unknown>): ExpectedColumn[] {
  return (config.expected_columns as (string | ExpectedColumn)[]).map((c) =>
    typeof c === 'string' ? { name: c } : c,
  );
}
