import { Client } from 'pg';
import { startApp, TestApp } from '../support/app';
import { databaseUrl, withServer, workerDatabase } from '../support/database';
import {
  addMember,
  bearer,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { pinLimiterClock, QUIET_MINUTE } from '../support/limiter-clock';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const KEY = 'cd'.repeat(32);

/**
 * POST /query/execute against a second, real PostgreSQL database that this
 * suite creates as the connector's source (a database of its own, so the
 * suite runs on PostgreSQL only).
 */
const sourceName = `${workerDatabase(process.env.JEST_WORKER_ID ?? '1')}_vq`;
const sourceUrl = databaseUrl(sourceName);

describe('visual query on a real source database', () => {
  let source: Client;
  let t: TestApp;
  let admin: TestUser;
  let space: TestSpace;
  let connectorId: string;

  beforeAll(async () => {
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${sourceName}`);
      // The session's own time zone must not leak into the answers.
      await client.query(`ALTER DATABASE ${sourceName} SET timezone TO 'America/New_York'`);
    });
    source = new Client({ connectionString: sourceUrl });
    await source.connect();
    await source.query(`
      CREATE TABLE sales (
        id bigint PRIMARY KEY,
        "Region" text,
        status text,
        total numeric(12,2) NOT NULL,
        qty integer,
        big bigint,
        ratio double precision,
        paid boolean,
        created_at timestamptz,
        local_at timestamp,
        day date,
        meta jsonb
      );
      INSERT INTO sales VALUES
        (1, 'EU', 'paid',     10.50, 1, 9007199254740993, 0.25, true,  '2024-01-02 03:04:05.123456+00', '2024-01-02 03:04:05', '2024-01-02', '{"a": [1, 2]}'),
        (2, 'EU', 'paid',     20.00, 2, NULL, NULL, false, NULL, NULL, NULL, NULL),
        (3, 'EU', 'refunded',  5.25, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (4, 'US', 'paid',    100.00, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (5, 'US', 'open',      1.00, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (6, 'APAC', 'open',    2.00, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (7, NULL, 'paid',      3.00, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (8, 'US', NULL,        4.00, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
      CREATE TABLE "Odd Name" ("Mixed Case" int, "with space" text);
      INSERT INTO "Odd Name" VALUES (1, 'a'), (2, 'b'), (2, 'c');
      CREATE TABLE "MixedCase" ("Id" int);
      INSERT INTO "MixedCase" VALUES (7);
      CREATE SCHEMA "Other Schema";
      CREATE TABLE "Other Schema".things (x int);
      INSERT INTO "Other Schema".things VALUES (42);
      CREATE TABLE many (n int, bucket int);
      INSERT INTO many SELECT n, n % 60 FROM generate_series(1, 5000) n;
      CREATE TABLE audit_log (n int);
      CREATE FUNCTION write_audit() RETURNS int LANGUAGE sql AS 'INSERT INTO audit_log VALUES (1) RETURNING n';
      CREATE VIEW writer AS SELECT write_audit() AS n;
      CREATE VIEW slow AS SELECT 1 AS n FROM pg_sleep(30);
    `);
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', ENCRYPTION_KEY: KEY } });
    admin = await createUser(t.http);
    space = await createSpace(t.http, admin);
    connectorId = await connector(space, sourceUrl);
  });
  afterAll(async () => {
    await t.close();
    await source.end();
    await withServer((client) => client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`));
  });

  async function connector(s: TestSpace, url: string): Promise<string> {
    const res = await t.http
      .post(`${API}/connectors/spaces/${s.slug}`)
      .set(bearer(admin))
      .send({ name: 'Source', connector_type: 'postgresql', config: { connection_string: url } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  /** A fresh editor per test: queries are limited to 30 a minute per caller. */
  async function editor(): Promise<TestUser> {
    const user = await createUser(t.http);
    await addMember(t.http, admin, space, user, 'editor');
    return user;
  }

  function execute(user: TestUser, query: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return t.http
      .post(`${API}/query/execute`)
      .set(bearer(user))
      .send({ space_slug: space.slug, connector_id: connectorId, query, ...extra });
  }

  async function ok(user: TestUser, query: Record<string, unknown>) {
    const res = await execute(user, query);
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body as {
      columns: { name: string; type: string }[];
      rows: unknown[][];
      row_count: number;
      truncated: boolean;
      elapsed_ms: number;
    };
  }

  it('answers every column in table order with source types, values without loss', async () => {
    const user = await editor();
    const res = await ok(user, { table: 'sales', filters: [{ column: 'id', op: 'eq', value: 1 }] });
    expect(res.columns).toEqual([
      { name: 'id', type: 'bigint' },
      { name: 'Region', type: 'text' },
      { name: 'status', type: 'text' },
      { name: 'total', type: 'numeric(12,2)' },
      { name: 'qty', type: 'integer' },
      { name: 'big', type: 'bigint' },
      { name: 'ratio', type: 'double precision' },
      { name: 'paid', type: 'boolean' },
      { name: 'created_at', type: 'timestamp with time zone' },
      { name: 'local_at', type: 'timestamp without time zone' },
      { name: 'day', type: 'date' },
      { name: 'meta', type: 'jsonb' },
    ]);
    expect(res.rows).toEqual([
      [
        '1',
        'EU',
        'paid',
        '10.50',
        1,
        '9007199254740993',
        0.25,
        true,
        '2024-01-02T03:04:05.123456Z',
        '2024-01-02T03:04:05Z',
        '2024-01-02',
        { a: [1, 2] },
      ],
    ]);
    expect(res).toEqual(
      expect.objectContaining({ row_count: 1, truncated: false, elapsed_ms: expect.any(Number) }),
    );
  });

  it('applies each filter operator, combined with AND, with order and limit', async () => {
    const user = await editor();
    const ids = async (filters: unknown[]) =>
      (await ok(user, { table: 'sales', columns: ['id'], filters, order_by: [{ column: 'id' }] })).rows.map(
        (r) => Number(r[0]),
      );
    expect(await ids([{ column: 'Region', op: 'eq', value: 'EU' }])).toEqual([1, 2, 3]);
    expect(await ids([{ column: 'region', op: 'ne', value: 'EU' }])).toEqual([4, 5, 6, 8]);
    expect(await ids([{ column: 'total', op: 'lt', value: 3 }])).toEqual([5, 6]);
    expect(await ids([{ column: 'total', op: 'lte', value: '3.00' }])).toEqual([5, 6, 7]);
    expect(await ids([{ column: 'qty', op: 'gt', value: 2 }])).toEqual([4, 6]);
    expect(await ids([{ column: 'qty', op: 'gte', value: 2 }])).toEqual([2, 4, 6]);
    expect(await ids([{ column: 'status', op: 'in', value: ['open', 'refunded'] }])).toEqual([3, 5, 6]);
    expect(await ids([{ column: 'status', op: 'not_in', value: ['paid'] }])).toEqual([3, 5, 6]);
    expect(await ids([{ column: 'status', op: 'like', value: 're%' }])).toEqual([3]);
    expect(await ids([{ column: 'total', op: 'like', value: '%.50' }])).toEqual([1]);
    expect(await ids([{ column: 'Region', op: 'is_null' }])).toEqual([7]);
    expect(
      await ids([
        { column: 'status', op: 'is_not_null' },
        { column: 'Region', op: 'eq', value: 'US' },
      ]),
    ).toEqual([4, 5]);
    expect(await ids([{ column: 'paid', op: 'eq', value: false }])).toEqual([2]);
    expect(await ids([{ column: 'id', op: 'in', value: [8, '2', 99] }])).toEqual([2, 8]);

    const top = await ok(user, {
      table: 'sales',
      columns: ['id', 'total'],
      order_by: [{ column: 'total', direction: 'desc' }],
      limit: 2,
    });
    expect(top.rows).toEqual([
      ['4', '100.00'],
      ['2', '20.00'],
    ]);
    expect(top).toEqual(expect.objectContaining({ row_count: 2, truncated: true }));
  });

  it('groups with every aggregation, named by alias or <fn>_<column>', async () => {
    const user = await editor();
    const res = await ok(user, {
      table: 'sales',
      filters: [{ column: 'Region', op: 'is_not_null' }],
      group_by: ['Region'],
      aggregations: [
        { fn: 'count' },
        { fn: 'count_distinct', column: 'status' },
        { fn: 'sum', column: 'total', alias: 'revenue' },
        { fn: 'avg', column: 'qty' },
        { fn: 'min', column: 'total' },
        { fn: 'max', column: 'qty' },
      ],
      order_by: [{ column: 'revenue', direction: 'desc' }],
    });
    expect(res.columns).toEqual([
      { name: 'Region', type: 'text' },
      { name: 'count', type: 'bigint' },
      { name: 'count_distinct_status', type: 'bigint' },
      { name: 'revenue', type: 'numeric' },
      { name: 'avg_qty', type: 'numeric' },
      { name: 'min_total', type: 'numeric(12,2)' },
      { name: 'max_qty', type: 'integer' },
    ]);
    expect(res.rows).toEqual([
      ['US', '3', '2', '105.00', '2.3333333333333333', '1.00', 5],
      ['EU', '3', '2', '35.75', '1.3333333333333333', '5.25', 2],
      ['APAC', '1', '1', '2.00', '3.0000000000000000', '2.00', 3],
    ]);
    const total = await ok(user, { table: 'sales', aggregations: [{ fn: 'sum', column: 'total' }] });
    expect(total.rows).toEqual([['145.75']]);
  });

  it('pivots rows by the distinct values of a column, null where there is no data', async () => {
    const user = await editor();
    const res = await ok(user, {
      table: 'sales',
      pivot: { rows: ['Region'], column: 'status', value: 'total', aggregate: 'sum' },
    });
    expect(res.columns).toEqual([
      { name: 'Region', type: 'text' },
      { name: 'open', type: 'numeric' },
      { name: 'paid', type: 'numeric' },
      { name: 'refunded', type: 'numeric' },
    ]);
    expect(res.rows).toEqual([
      ['APAC', '2.00', null, null],
      ['EU', null, '30.50', '5.25'],
      ['US', '1.00', '100.00', null],
      [null, null, '3.00', null],
    ]);
    const counts = await ok(user, {
      table: 'sales',
      filters: [{ column: 'Region', op: 'in', value: ['EU', 'US'] }],
      pivot: { rows: ['Region'], column: 'status', value: 'id', aggregate: 'count' },
      order_by: [{ column: 'Region', direction: 'desc' }],
    });
    expect(counts.columns.map((c) => c.name)).toEqual(['Region', 'open', 'paid', 'refunded']);
    expect(counts.rows).toEqual([
      ['US', '1', '1', null],
      ['EU', null, '2', '1'],
    ]);
  });

  it('caps pivots at 50 values after the filters, and rows at the limit', async () => {
    const user = await editor();
    const pivot = { rows: ['bucket'], column: 'bucket', value: 'n', aggregate: 'count' };
    const wide = await execute(user, { table: 'many', pivot });
    expectProblem(wide, 422, /more than 50 distinct values/);
    expect(invalidFields(wide)).toEqual(['query.pivot.column']);
    const narrowed = await ok(user, {
      table: 'many',
      filters: [{ column: 'bucket', op: 'lt', value: 50 }],
      pivot,
      limit: 3,
    });
    expect(narrowed.columns).toHaveLength(51);
    expect(narrowed.columns[1].name).toBe('0');
    expect(narrowed.columns[2].name).toBe('1');
    expect(narrowed.columns[3].name).toBe('10'); // as text, sorted
    expect(narrowed).toEqual(expect.objectContaining({ row_count: 3, truncated: true }));

    const byDefault = await ok(user, { table: 'many', columns: ['n'] });
    expect(byDefault).toEqual(expect.objectContaining({ row_count: 100, truncated: true }));
    const most = await ok(user, { table: 'many', columns: ['n'], limit: 1000 });
    expect(most).toEqual(expect.objectContaining({ row_count: 1000, truncated: true }));
    const exact = await ok(user, {
      table: 'many',
      columns: ['n'],
      filters: [{ column: 'n', op: 'lte', value: 1000 }],
      limit: 1000,
    });
    expect(exact).toEqual(expect.objectContaining({ row_count: 1000, truncated: false }));
    for (const limit of [0, 1001, 2.5, '10']) {
      const res = await execute(user, { table: 'many', limit });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['query.limit']);
    }
  });

  it('resolves mixed-case names, names with spaces and quoted schemas', async () => {
    const user = await editor();
    for (const table of ['public."Odd Name"', 'public.Odd Name', '"Odd Name"', 'odd name']) {
      const res = await ok(user, {
        table,
        group_by: ['Mixed Case'],
        aggregations: [{ fn: 'count' }],
        order_by: [{ column: 'mixed case' }],
      });
      expect(res.rows).toEqual([
        [1, '1'],
        [2, '2'],
      ]);
    }
    expect((await ok(user, { table: 'mixedcase' })).rows).toEqual([[7]]);
    expect((await ok(user, { table: '"MixedCase"', columns: ['id'] })).columns).toEqual([
      { name: 'Id', type: 'integer' },
    ]);
    expect((await ok(user, { table: '"Other Schema".things' })).rows).toEqual([[42]]);
    const quotedWrongCase = await execute(user, { table: 'public."odd name"' });
    expectProblem(quotedWrongCase, 422, /odd name/);
  });

  it('refuses unknown and hostile names with a 422 naming them, and binds hostile values', async () => {
    const user = await editor();
    for (const table of [
      'nope',
      'sales; DROP TABLE sales',
      'sales --',
      'sales /* x */',
      "sales' OR '1'='1",
      'ѕales', // Cyrillic ѕ
      'sаles', // Cyrillic а
      'pg_catalog.pg_authid',
      'pg_stat_activity',
      'information_schema.tables',
      'a.b.c',
    ]) {
      const res = await execute(user, { table });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['query.table']);
      expect(res.body.errors[0].message).toContain(table);
    }
    const columns = await execute(user, {
      table: 'sales',
      columns: ['id', 'total; DROP TABLE sales', 'іd'],
      filters: [{ column: 'status" OR 1=1 --', op: 'eq', value: 'x' }],
    });
    expectProblem(columns, 422);
    expect(invalidFields(columns).sort()).toEqual([
      'query.columns.1',
      'query.columns.2',
      'query.filters.0.column',
    ]);
    expect(columns.body.errors).toContainEqual({
      field: 'query.columns.1',
      message: 'Column total; DROP TABLE sales was not found in table public.sales.',
    });

    const values = await ok(user, {
      table: 'sales',
      filters: [
        { column: 'status', op: 'eq', value: "paid'; DROP TABLE sales; --" },
        { column: 'Region', op: 'in', value: ['EU"}', "x'); DELETE FROM sales; --"] },
      ],
      aggregations: [{ fn: 'count', alias: '"; DROP TABLE sales; --' }],
    });
    expect(values.rows).toEqual([['0']]);
    expect(values.columns).toEqual([{ name: '"; DROP TABLE sales; --', type: 'bigint' }]);
    const { rows } = await source.query(`SELECT count(*)::int AS n FROM sales`);
    expect(rows[0].n).toBe(8);
  });

  it('answers 422 for values the column type cannot take and for invalid shapes', async () => {
    const user = await editor();
    const wrongType = await execute(user, {
      table: 'sales',
      filters: [{ column: 'qty', op: 'eq', value: 'many' }],
    });
    expectProblem(wrongType, 422, /invalid input syntax for type integer/);
    const notNumeric = await execute(user, {
      table: 'sales',
      aggregations: [{ fn: 'sum', column: 'status' }],
    });
    expectProblem(notNumeric, 422, /sum needs a numeric column/);
    const badOp = await execute(user, {
      table: 'sales',
      filters: [{ column: 'id', op: 'between', value: 1 }],
    });
    expect(invalidFields(badOp)).toEqual(['query.filters.0.op']);
    const unknownField = await execute(user, { table: 'sales', sql: 'SELECT 1' });
    expectProblem(unknownField, 422);
    const noValue = await execute(user, { table: 'sales', filters: [{ column: 'id', op: 'in' }] });
    expect(invalidFields(noValue)).toEqual(['query.filters.0.value']);
  });

  it('runs read-only, with the statement timeout', async () => {
    const user = await editor();
    const write = await execute(user, { table: 'writer' });
    expectProblem(write, 502, /read-only transaction/);
    expect((await source.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n).toBe(0);
    const started = Date.now();
    const slow = await execute(user, { table: 'slow' });
    expectProblem(slow, 502, /statement timeout/);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it('needs edit access to the space that owns the connector', async () => {
    const query = { table: 'sales', columns: ['id'], limit: 1 };
    const viewer = await createUser(t.http);
    await addMember(t.http, admin, space, viewer, 'viewer');
    expectProblem(await execute(viewer, query), 403);
    const stranger = await createUser(t.http);
    expectProblem(await execute(stranger, query), 404);
    expectProblem(await execute(stranger, query, { space_slug: 'no-such-space' }), 404);
    const root = await rootUser(t.http);
    expect((await execute(root, query)).status).toBe(200);
    expect((await t.http.post(`${API}/query/execute`).send({})).status).toBe(401);

    // A connector of another space is not found through this one.
    const other = await createSpace(t.http, admin);
    const foreign = await connector(other, sourceUrl);
    const user = await editor();
    expectProblem(await execute(user, query, { connector_id: foreign }), 404, /connector/);
    const unreachable = await connector(space, databaseUrl(`${sourceName}_missing`));
    expectProblem(await execute(user, query, { connector_id: unreachable }), 502, /does not exist/);
  });

  it('limits queries to 30 a minute per caller', async () => {
    const user = await editor();
    const other = await editor();
    // One minute window for all 31 requests, however long they take on the wall clock.
    const clock = pinLimiterClock(t, QUIET_MINUTE);
    try {
      for (let i = 0; i < 30; i++) {
        expect((await execute(user, { table: 'sales', columns: ['id'], limit: 1 })).status).toBe(200);
      }
      expectProblem(
        await execute(user, { table: 'sales', columns: ['id'], limit: 1 }),
        429,
        /try again in \d+ seconds?/,
      );
      expect((await execute(other, { table: 'sales', columns: ['id'], limit: 1 })).status).toBe(200);
    } finally {
      clock.restore();
    }
  });
});
