import { checkConfigErrors } from './check-config';

const fields = (errors: { field: string }[]) => errors.map((e) => e.field);

describe('check configuration', () => {
  it('accepts each type in its documented shape', () => {
    expect(checkConfigErrors('sql_assertion', { sql: 'SELECT 1 WHERE false', timeout_seconds: 5 })).toEqual(
      [],
    );
    expect(checkConfigErrors('row_count', { table: 'orders', min: 1, max: 10, approximate: true })).toEqual(
      [],
    );
    expect(
      checkConfigErrors('null_rate', { table: 'sales.orders', column: 'email', max_rate: 0.05 }),
    ).toEqual([]);
    expect(
      checkConfigErrors('freshness', { table: 'orders', column: 'updated_at', max_age_minutes: null }),
    ).toEqual([]);
    expect(checkConfigErrors('freshness', { table: 'orders', column: 'updated_at' })).toEqual([]);
    // Names that need quoting are names like any other: the source's catalog decides whether they exist.
    expect(
      checkConfigErrors('null_rate', { table: 'public."Odd Name"', column: 'With Space', max_rate: 0 }),
    ).toEqual([]);
    expect(checkConfigErrors('row_count', { table: '"MixedCase"', min: 0 })).toEqual([]);
    expect(
      checkConfigErrors('schema', {
        table: 'orders',
        expected_columns: ['id', { name: 'total', type: 'numeric', nullable: false }],
        allow_extra_columns: false,
      }),
    ).toEqual([]);
    expect(checkConfigErrors('custom', { anything: { goes: true } })).toEqual([]);
  });

  it('names every invalid setting', () => {
    expect(fields(checkConfigErrors('row_count', { table: 'a.b.c' }))).toEqual([
      'config.table',
      'config.min',
    ]);
    expect(fields(checkConfigErrors('row_count', { table: 't', min: 5, max: 2 }))).toEqual(['config.max']);
    expect(fields(checkConfigErrors('row_count', { table: 't', min: -1, approximate: 'yes' }))).toEqual([
      'config.min',
      'config.approximate',
    ]);
    expect(fields(checkConfigErrors('null_rate', { table: 't', column: '', max_rate: 2 }))).toEqual([
      'config.column',
      'config.max_rate',
    ]);
    expect(fields(checkConfigErrors('freshness', { table: 't', column: 'c', max_age_minutes: 0 }))).toEqual([
      'config.max_age_minutes',
    ]);
    expect(fields(checkConfigErrors('schema', { table: 't', expected_columns: [] }))).toEqual([
      'config.expected_columns',
    ]);
    expect(
      fields(checkConfigErrors('schema', { table: 't', expected_columns: ['a', { nam: 'b' }] })),
    ).toEqual(['config.expected_columns[1]']);
    expect(fields(checkConfigErrors('sql_assertion', { sql: '  ' }))).toEqual(['config.sql']);
    expect(fields(checkConfigErrors('sql_assertion', { sql: 'select 1', timeout_seconds: 30 }))).toEqual([
      'config.timeout_seconds',
    ]);
  });

  it('rejects settings that do not belong to the type', () => {
    expect(fields(checkConfigErrors('row_count', { table: 't', min: 1, sql: 'x' }))).toEqual(['config.sql']);
  });
});
