import { ValidationFailed } from '../../common/errors/domain-error';
import { quoteIdent, SourceColumn, SourceTable } from '../connectors/source-catalog.service';
import { CompiledQuery, compileQuery, FILTER_OPS, VisualQuery } from './query-compiler';

const col = (name: string, type: string, category: string): SourceColumn => ({
  name,
  type,
  category,
  nullable: true,
  quoted: quoteIdent(name),
});

const HOSTILE = 'x"; DROP TABLE orders; --';
const orders: SourceTable = {
  schema: 'public',
  name: 'Orders',
  quoted: '"public"."Orders"',
  display: 'public.Orders',
  columns: [
    col('id', 'bigint', 'N'),
    col('Region', 'text', 'S'),
    col('status', 'text', 'S'),
    col('total', 'numeric(12,2)', 'N'),
    col('qty', 'integer', 'N'),
    col('Odd Name', 'text', 'S'),
    col(HOSTILE, 'text', 'S'),
    col('created_at', 'timestamp with time zone', 'D'),
  ],
};

function rows(query: Omit<VisualQuery, 'table'>): CompiledQuery {
  const plan = compileQuery({ table: 'public.Orders', ...query }, orders);
  if (plan.kind !== 'rows') throw new Error('expected rows');
  return plan.query;
}

function rejected(query: Omit<VisualQuery, 'table'>): { field: string; message: string }[] {
  try {
    const plan = compileQuery({ table: 'public.Orders', ...query }, orders);
    if (plan.kind === 'pivot') plan.build([]);
  } catch (error) {
    if (error instanceof ValidationFailed)
      return error.extensions.errors as { field: string; message: string }[];
    throw error;
  }
  throw new Error('expected a 422');
}

describe('visual query compiler', () => {
  it('selects every column in table order by default, quoted, with limit + 1 bound', () => {
    const q = rows({});
    expect(q.sql).toBe(
      `SELECT "id", "Region", "status", "total", "qty", "Odd Name", "x""; DROP TABLE orders; --", "created_at" ` +
        `FROM "public"."Orders" LIMIT $1`,
    );
    expect(q.params).toEqual(['101']);
    expect(q.limit).toBe(100);
    expect(q.columns[1]).toEqual({ name: 'Region', type: 'text' });
  });

  it('selects the named columns in order, resolving case like the catalog does', () => {
    const q = rows({ columns: ['region', 'Odd Name', 'ID'], limit: 1000 });
    expect(q.sql).toBe('SELECT "Region", "Odd Name", "id" FROM "public"."Orders" LIMIT $1');
    expect(q.params).toEqual(['1001']);
    expect(q.columns.map((c) => c.name)).toEqual(['Region', 'Odd Name', 'id']);
  });

  describe('filters', () => {
    const cases: [string, unknown, string, unknown[]][] = [
      ['eq', 'EU', '"Region" = $1', ['EU']],
      ['ne', 'EU', '"Region" <> $1', ['EU']],
      ['lt', 10, '"Region" < $1', ['10']],
      ['lte', 10.5, '"Region" <= $1', ['10.5']],
      ['gt', '12345678901234567890', '"Region" > $1', ['12345678901234567890']],
      ['gte', true, '"Region" >= $1', ['true']],
      ['in', ['EU', 'US', 3], '"Region" = ANY($1)', [['EU', 'US', '3']]],
      ['not_in', ['EU'], '"Region" <> ALL($1)', [['EU']]],
      ['like', 'E%', 'CAST("Region" AS text) LIKE $1', ['E%']],
      ['is_null', undefined, '"Region" IS NULL', []],
      ['is_not_null', undefined, '"Region" IS NOT NULL', []],
    ];
    it('covers all eleven operators', () => {
      expect(cases.map((c) => c[0]).sort()).toEqual([...FILTER_OPS].sort());
    });
    it.each(cases)('%s compiles to a bound comparison', (op, value, condition, params) => {
      const q = rows({ columns: ['id'], filters: [{ column: 'Region', op: op as never, value }] });
      expect(q.sql).toBe(`SELECT "id" FROM "public"."Orders" WHERE ${condition} LIMIT $${params.length + 1}`);
      expect(q.params).toEqual([...params, '101']);
    });

    it('combines filters with AND', () => {
      const q = rows({
        columns: ['id'],
        filters: [
          { column: 'status', op: 'eq', value: 'paid' },
          { column: 'qty', op: 'gte', value: 2 },
        ],
      });
      expect(q.sql).toBe('SELECT "id" FROM "public"."Orders" WHERE "status" = $1 AND "qty" >= $2 LIMIT $3');
      expect(q.params).toEqual(['paid', '2', '101']);
    });

    it('checks each value against its operator', () => {
      expect(
        rejected({
          filters: [
            { column: 'status', op: 'eq' },
            { column: 'status', op: 'eq', value: null },
            { column: 'status', op: 'in', value: [] },
            { column: 'status', op: 'in', value: 'paid' },
            { column: 'status', op: 'not_in', value: [{ a: 1 }] },
            { column: 'status', op: 'like', value: 5 },
            { column: 'status', op: 'is_null', value: 'x' },
            { column: 'status', op: 'lt', value: ['a'] },
          ],
        }).map((e) => e.field),
      ).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `query.filters.${i}.value`));
      expect(
        rejected({ filters: [{ column: 'status', op: 'in', value: Array(1001).fill('a') }] }),
      ).toHaveLength(1);
    });
  });

  it('orders by table columns in either direction', () => {
    const q = rows({
      columns: ['id'],
      order_by: [{ column: 'created_at', direction: 'desc' }, { column: 'id' }],
    });
    expect(q.sql).toBe('SELECT "id" FROM "public"."Orders" ORDER BY "created_at" DESC, "id" ASC LIMIT $1');
  });

  describe('aggregations', () => {
    it('groups, aggregates with every function and default names, and types the answer', () => {
      const q = rows({
        group_by: ['Region'],
        aggregations: [
          { fn: 'count' },
          { fn: 'count_distinct', column: 'status' },
          { fn: 'sum', column: 'total' },
          { fn: 'avg', column: 'qty', alias: 'mean qty' },
          { fn: 'min', column: 'created_at' },
          { fn: 'max', column: 'total' },
          { fn: 'sum', column: 'qty' },
        ],
        order_by: [{ column: 'count', direction: 'desc' }, { column: 'region' }],
        limit: 10,
      });
      expect(q.sql).toBe(
        'SELECT "Region", count(*), count(DISTINCT "status"), sum("total"), avg("qty"), min("created_at"), ' +
          'max("total"), sum("qty") FROM "public"."Orders" GROUP BY "Region" ORDER BY 2 DESC, 1 ASC LIMIT $1',
      );
      expect(q.params).toEqual(['11']);
      expect(q.columns).toEqual([
        { name: 'Region', type: 'text' },
        { name: 'count', type: 'bigint' },
        { name: 'count_distinct_status', type: 'bigint' },
        { name: 'sum_total', type: 'numeric' },
        { name: 'mean qty', type: 'numeric' },
        { name: 'min_created_at', type: 'timestamp with time zone' },
        { name: 'max_total', type: 'numeric(12,2)' },
        { name: 'sum_qty', type: 'bigint' },
      ]);
    });

    it('aggregates the whole table without group_by, and groups without aggregations', () => {
      expect(rows({ aggregations: [{ fn: 'count' }] }).sql).toBe(
        'SELECT count(*) FROM "public"."Orders" LIMIT $1',
      );
      expect(rows({ group_by: ['status'] }).sql).toBe(
        'SELECT "status" FROM "public"."Orders" GROUP BY "status" LIMIT $1',
      );
    });

    it('keeps aliases out of the SQL, whatever they hold', () => {
      const q = rows({
        aggregations: [{ fn: 'count', alias: `"; DROP TABLE orders; --` }],
        order_by: [{ column: `"; DROP TABLE orders; --` }],
      });
      expect(q.sql).toBe('SELECT count(*) FROM "public"."Orders" ORDER BY 1 ASC LIMIT $1');
      expect(q.columns).toEqual([{ name: `"; DROP TABLE orders; --`, type: 'bigint' }]);
    });

    it('refuses shapes the decisions do not allow', () => {
      expect(rejected({ aggregations: [{ fn: 'count', column: 'id' }] })).toEqual([
        expect.objectContaining({ field: 'query.aggregations.0.column' }),
      ]);
      expect(rejected({ aggregations: [{ fn: 'sum' }] })[0].field).toBe('query.aggregations.0.column');
      expect(rejected({ aggregations: [{ fn: 'avg', column: 'status' }] })).toEqual([
        { field: 'query.aggregations.0.fn', message: 'avg needs a numeric column; status is text.' },
      ]);
      expect(rejected({ aggregations: [{ fn: 'count' }, { fn: 'count' }] })[0].field).toBe(
        'query.aggregations',
      );
      expect(
        rejected({ group_by: ['status'], columns: ['id'], aggregations: [{ fn: 'count' }] })[0].field,
      ).toBe('query.columns.0');
      expect(rejected({ group_by: ['status'], order_by: [{ column: 'id' }] })[0].field).toBe(
        'query.order_by.0.column',
      );
    });
  });

  describe('pivot', () => {
    const pivot = (aggregate: string, extra: Omit<VisualQuery, 'table'> = {}) => {
      const plan = compileQuery(
        {
          table: 'public.Orders',
          pivot: { rows: ['Region'], column: 'status', value: 'total', aggregate: aggregate as never },
          filters: [{ column: 'qty', op: 'gt', value: 0 }],
          ...extra,
        },
        orders,
      );
      if (plan.kind !== 'pivot') throw new Error('expected a pivot');
      return plan;
    };

    it('first reads the distinct pivot values (as text, sorted, nulls out, one past the cap), with the filters', () => {
      expect(pivot('sum').values).toEqual({
        sql:
          'SELECT DISTINCT CAST("status" AS text) COLLATE "C" AS v FROM "public"."Orders" ' +
          'WHERE "qty" > $1 AND CAST("status" AS text) IS NOT NULL ORDER BY 1 LIMIT 51',
        params: ['0'],
      });
    });

    it('then aggregates one cell per value, each value bound', () => {
      const q = pivot('sum').build(['paid', `o'; DROP TABLE x; --`]);
      expect(q.sql).toBe(
        'SELECT "Region", sum("total") FILTER (WHERE CAST("status" AS text) = $2), ' +
          'sum("total") FILTER (WHERE CAST("status" AS text) = $3) FROM "public"."Orders" WHERE "qty" > $1 ' +
          'GROUP BY "Region" ORDER BY 1 ASC LIMIT $4',
      );
      expect(q.params).toEqual(['0', 'paid', `o'; DROP TABLE x; --`, '101']);
      expect(q.columns).toEqual([
        { name: 'Region', type: 'text' },
        { name: 'paid', type: 'numeric' },
        { name: `o'; DROP TABLE x; --`, type: 'numeric' },
      ]);
    });

    it('makes empty cells null for every function, counts included', () => {
      const cell = (fn: string) => /^SELECT "Region", (.*) FROM /.exec(pivot(fn).build(['paid']).sql)?.[1];
      const only = 'FILTER (WHERE CAST("status" AS text) = $2)';
      expect(cell('count')).toBe(`NULLIF(count(*) ${only}, 0)`);
      expect(cell('count_distinct')).toBe(
        `CASE WHEN count(*) ${only} > 0 THEN count(DISTINCT "total") ${only} END`,
      );
      for (const fn of ['avg', 'min', 'max']) expect(cell(fn)).toBe(`${fn}("total") ${only}`);
      expect(pivot('count').build(['paid']).columns[1].type).toBe('bigint');
    });

    it('orders by pivot.rows columns only, and stands alone', () => {
      expect(pivot('sum', { order_by: [{ column: 'region', direction: 'desc' }] }).build([]).sql).toContain(
        'ORDER BY 1 DESC',
      );
      expect(
        rejected({
          pivot: { rows: ['Region'], column: 'status', value: 'total', aggregate: 'sum' },
          order_by: [{ column: 'id' }],
        })[0].field,
      ).toBe('query.order_by.0.column');
      expect(
        rejected({
          pivot: { rows: ['Region'], column: 'status', value: 'total', aggregate: 'sum' },
          aggregations: [{ fn: 'count' }],
        })[0].field,
      ).toBe('query.pivot');
      expect(
        rejected({ pivot: { rows: ['nope'], column: 'nope2', value: 'status', aggregate: 'avg' } }).map(
          (e) => e.field,
        ),
      ).toEqual(['query.pivot.rows.0', 'query.pivot.column', 'query.pivot.aggregate']);
    });
  });

  describe('hostile identifiers', () => {
    const hostile = [
      'id; DROP TABLE orders',
      'id"; DROP TABLE orders; --',
      'id -- comment',
      'id /* comment */',
      "id' OR '1'='1",
      '"id"',
      'ıd', // dotless i
      'іd', // Cyrillic і
      'ｉｄ', // fullwidth
      'id\u200b', // zero-width space
      'total)',
      '*',
    ];
    it.each(hostile)('%j is an unknown column (422 naming the field), never SQL', (name) => {
      for (const query of [
        { columns: [name] },
        { filters: [{ column: name, op: 'eq' as const, value: 1 }] },
        { group_by: [name] },
        { aggregations: [{ fn: 'max' as const, column: name }] },
        { order_by: [{ column: name }] },
        { pivot: { rows: [name], column: 'status', value: 'total', aggregate: 'sum' as const } },
      ]) {
        const errors = rejected(query);
        expect(errors).toHaveLength(1);
        expect(errors[0].message).toContain('public.Orders');
      }
    });

    it('quotes a real column whose name looks like SQL, so it stays a name', () => {
      const q = rows({ columns: [HOSTILE], filters: [{ column: HOSTILE, op: 'like', value: "%'; --" }] });
      expect(q.sql).toBe(
        'SELECT "x""; DROP TABLE orders; --" FROM "public"."Orders" WHERE CAST("x""; DROP TABLE orders; --" AS text) LIKE $1 LIMIT $2',
      );
      expect(q.params).toEqual(["%'; --", '101']);
    });

    it('puts values only in parameters', () => {
      const nasty = `'); DELETE FROM orders; --`;
      const q = rows({ filters: [{ column: 'status', op: 'in', value: [nasty, '$1'] }] });
      expect(q.sql).not.toContain('DELETE');
      expect(q.params[0]).toEqual([nasty, '$1']);
    });
  });
});
