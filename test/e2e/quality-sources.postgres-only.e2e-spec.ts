import { Client } from 'pg';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';
import { databaseUrl, withServer, workerDatabase } from '../support/database';
import { pinLimiterClock, QUIET_MINUTE } from '../support/limiter-clock';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  login,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const KEY = 'ab'.repeat(32);

/**
 * Connectors and every check type against a second, real PostgreSQL
 * database that this suite creates as the "user's database".
 */
const sourceName = `${workerDatabase(process.env.JEST_WORKER_ID ?? '1')}_src`;
const sourceUrl = databaseUrl(sourceName);
// Kept for the last suite, which runs after the first app has stopped (one app at a time: passport's strategies are global).
let admin: TestUser;
let space: TestSpace;
let connectorId: string;

describe('connector sync and quality checks on a real source database', () => {
  let source: Client;
  let t: TestApp;

  beforeAll(async () => {
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${sourceName}`);
    });
    source = new Client({ connectionString: sourceUrl });
    await source.connect();
    await source.query(`
      CREATE TABLE orders (
        id bigint PRIMARY KEY,
        customer_email text,
        total numeric(12,2) NOT NULL,
        updated_at timestamptz NOT NULL
      );
      COMMENT ON TABLE orders IS 'Every order';
      INSERT INTO orders
        SELECT n, CASE WHEN n % 10 = 0 THEN NULL ELSE 'c' || n || '@example.test' END, n * 1.5,
               now() - interval '30 minutes' - (n || ' seconds')::interval
          FROM generate_series(1, 100) n;
      CREATE SEQUENCE order_numbers;
      CREATE FUNCTION purge_orders() RETURNS bigint LANGUAGE sql AS 'DELETE FROM orders RETURNING id';
      CREATE TABLE customers (id bigint PRIMARY KEY, name text NOT NULL);
      CREATE TABLE empty_events (id bigint, at timestamptz);
      CREATE SCHEMA sales;
      CREATE VIEW sales.daily AS SELECT date_trunc('day', updated_at) AS day, sum(total) AS total FROM orders GROUP BY 1;
      CREATE TABLE big (id int);
      INSERT INTO big SELECT generate_series(1, 5000);
      ANALYZE big;
      INSERT INTO big SELECT generate_series(1, 1000);
    `);
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', ENCRYPTION_KEY: KEY } });
    admin = await createUser(t.http);
    space = await createSpace(t.http, admin);
    const connector = await t.http
      .post(`${API}/connectors/spaces/${space.slug}`)
      .set(bearer(admin))
      .send({ name: 'Source', connector_type: 'postgresql', config: { connection_string: sourceUrl } });
    expect(connector.status).toBe(201);
    connectorId = connector.body.id;
  });
  afterAll(async () => {
    await t.close();
    await source.end();
    await withServer((client) => client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`));
  });

  /** A fresh editor per use: check runs are limited to 10 a minute per caller. */
  async function editor(): Promise<TestUser> {
    const user = await createUser(t.http);
    await addMember(t.http, admin, space, user, 'editor');
    return user;
  }

  async function check(product: { id: string }, fields: Record<string, unknown>) {
    const res = await t.http
      .post(`${API}/spaces/${space.slug}/quality/checks`)
      .set(bearer(admin))
      .send({
        product_id: product.id,
        connector_id: connectorId,
        name: 'check',
        severity: 'high',
        ...fields,
      });
    if (res.status !== 201) throw new Error(`create check: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  }

  async function run(user: TestUser, checkId: string) {
    const res = await t.http.post(`${API}/quality/checks/${checkId}/run`).set(bearer(user));
    if (res.status !== 200) throw new Error(`run: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as {
      run_id: string;
      status: string;
      observed_value: number | null;
      message: string;
      alert_id: string | null;
    };
  }

  it('tests the connection', async () => {
    const res = await t.http
      .post(`${API}/connectors/spaces/${space.slug}/${connectorId}/test`)
      .set(bearer(admin));
    expect(res.body).toEqual({
      success: true,
      error: null,
      latency_ms: expect.any(Number),
      server_version: expect.stringMatching(/^\d+/),
    });
  });

  it('syncs tables and columns into dataset products, then updates them', async () => {
    const s = await createSpace(t.http, admin);
    const existing = await createProduct(t.http, admin, s, {
      name: 'orders',
      description: 'Curated by hand',
      attributes: { owner_team: 'finance' },
      tags: ['gold'],
    });
    const connector = await t.http
      .post(`${API}/connectors/spaces/${s.slug}`)
      .set(bearer(admin))
      .send({ name: 'Src', connector_type: 'postgresql', config: { connection_string: sourceUrl } });
    const sync = await t.http
      .post(`${API}/connectors/spaces/${s.slug}/${connector.body.id}/sync`)
      .set(bearer(admin));
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual({
      status: 'succeeded',
      products_created: 4,
      products_updated: 1,
      tables_found: 5,
      error: null,
    });

    const list = await t.http.get(`${API}/catalog/spaces/${s.slug}/products?limit=200`).set(bearer(admin));
    const byName = new Map(list.body.items.map((p: { name: string }) => [p.name, p]));
    expect([...byName.keys()].sort()).toEqual(['big', 'customers', 'empty_events', 'orders', 'sales.daily']);
    const orders = byName.get('orders') as {
      id: string;
      product_type: string;
      attributes: Record<string, unknown>;
      description: string;
      tags: string[];
    };
    expect(orders.id).toBe(existing.id);
    expect(orders.description).toBe('Every order');
    expect(orders.tags).toEqual(['gold']);
    expect(orders.attributes.owner_team).toBe('finance');
    expect(orders.attributes.schema).toEqual({
      source_schema: 'public',
      source_table: 'orders',
      table_type: 'table',
      row_estimate: null,
      columns: [
        { name: 'id', type: 'bigint', nullable: false },
        { name: 'customer_email', type: 'text', nullable: true },
        { name: 'total', type: 'numeric(12,2)', nullable: false },
        { name: 'updated_at', type: 'timestamp with time zone', nullable: false },
      ],
    });
    expect(orders.attributes.source).toEqual({
      connector_id: connector.body.id,
      connector_name: 'Src',
      synced_at: expect.any(String),
    });
    const big = byName.get('big') as {
      product_type: string;
      attributes: { schema: { row_estimate: number } };
    };
    expect(big.product_type).toBe('dataset');
    expect(big.attributes.schema.row_estimate).toBe(5000);
    expect(
      (byName.get('sales.daily') as { attributes: { schema: { table_type: string } } }).attributes.schema
        .table_type,
    ).toBe('view');

    const again = await t.http
      .post(`${API}/connectors/spaces/${s.slug}/${connector.body.id}/sync`)
      .set(bearer(admin));
    expect(again.body).toEqual({
      status: 'succeeded',
      products_created: 0,
      products_updated: 5,
      tables_found: 5,
      error: null,
    });
    const after = await t.http
      .get(`${API}/connectors/spaces/${s.slug}/${connector.body.id}`)
      .set(bearer(admin));
    expect(after.body).toEqual(
      expect.objectContaining({ last_sync_status: 'succeeded', last_synced_at: expect.any(String) }),
    );
  });

  it('limits syncs to 5 a minute per caller', async () => {
    const user = await editor();
    const url = `${API}/connectors/spaces/${space.slug}/${connectorId}/sync`;
    const clock = pinLimiterClock(t, QUIET_MINUTE);
    try {
      for (let i = 0; i < 5; i++) expect((await t.http.post(url).set(bearer(user))).status).toBe(200);
      const limited = await t.http.post(url).set(bearer(user));
      expectProblem(limited, 429, /try again in \d+ seconds?/);
    } finally {
      clock.restore();
    }
  });

  describe('checks', () => {
    let orders: { id: string };
    let events: { id: string };

    beforeAll(async () => {
      orders = await createProduct(t.http, admin, space, { name: 'orders_src', sla_freshness_minutes: 10 });
      events = await createProduct(t.http, admin, space, { name: 'events_src' });
      // Created after the sync tests, which count the source's tables.
      await source.query(`
        CREATE TABLE "Odd Name" ("With Space" text, "UpdatedAt" timestamptz NOT NULL);
        INSERT INTO "Odd Name" VALUES (NULL, now() - interval '5 minutes'), ('x', now() - interval '10 minutes');
        CREATE TABLE "MixedCase" ("Id" int);
        CREATE TABLE doomed (id int);
        CREATE TABLE doomed_too (id int);
      `);
    });

    it('row_count: exact counts and catalog estimates (no scan)', async () => {
      const user = await editor();
      const exact = await check(orders, {
        check_type: 'row_count',
        config: { table: 'orders', min: 1, max: 1000 },
      });
      expect(await run(user, exact.id)).toEqual({
        run_id: expect.any(String),
        status: 'passed',
        observed_value: 100,
        message: '100 rows (counted exactly); expected at least 1 and at most 1000.',
        alert_id: null,
      });
      const tooFew = await check(orders, { check_type: 'row_count', config: { table: 'orders', min: 101 } });
      const failed = await run(user, tooFew.id);
      expect(failed).toEqual(
        expect.objectContaining({ status: 'failed', observed_value: 100, alert_id: expect.any(String) }),
      );

      // `big` was analysed at 5,000 rows and has 6,000 now: the estimate says 5,000.
      const approximate = await check(orders, {
        check_type: 'row_count',
        config: { table: 'big', min: 1, approximate: true },
      });
      const estimated = await run(user, approximate.id);
      expect(estimated).toEqual(expect.objectContaining({ status: 'passed', observed_value: 5000 }));
      expect(estimated.message).toContain('pg_class.reltuples');
      const counted = await check(orders, { check_type: 'row_count', config: { table: 'big', min: 1 } });
      expect((await run(user, counted.id)).observed_value).toBe(6000);
      const schemaQualified = await check(orders, {
        check_type: 'row_count',
        config: { table: 'public.customers', max: 0 },
      });
      expect((await run(user, schemaQualified.id)).status).toBe('passed');
    });

    it('resolves mixed-case names and names with spaces in the source catalog, and quotes them', async () => {
      const user = await editor();
      for (const table of ['public."Odd Name"', 'public.Odd Name', '"Odd Name"', 'odd name']) {
        const c = await check(orders, { check_type: 'row_count', config: { table, min: 2, max: 2 } });
        expect(await run(user, c.id)).toEqual(
          expect.objectContaining({ status: 'passed', observed_value: 2 }),
        );
      }
      const estimate = await check(orders, {
        check_type: 'row_count',
        config: { table: '"MixedCase"', max: 0, approximate: true },
      });
      expect((await run(user, estimate.id)).status).toBe('passed');
      const nulls = await check(orders, {
        check_type: 'null_rate',
        config: { table: 'public."Odd Name"', column: 'With Space', max_rate: 0.5 },
      });
      expect(await run(user, nulls.id)).toEqual(
        expect.objectContaining({ status: 'passed', observed_value: 0.5 }),
      );
      const fresh = await check(orders, {
        check_type: 'freshness',
        config: { table: 'public."Odd Name"', column: 'updatedat', max_age_minutes: 60 },
      });
      const freshRun = await run(user, fresh.id);
      expect(freshRun.status).toBe('passed');
      expect(freshRun.observed_value).toBeGreaterThan(4);
      expect(freshRun.observed_value).toBeLessThan(15);
      const shape = await check(orders, {
        check_type: 'schema',
        config: {
          table: 'Odd Name',
          expected_columns: [{ name: 'With Space', type: 'text' }, 'UpdatedAt'],
          allow_extra_columns: false,
        },
      });
      expect((await run(user, shape.id)).status).toBe('passed');
    });

    it('refuses a table or column the source does not have: 422 on write, an error run once it is gone', async () => {
      const user = await editor();
      const create = (config: Record<string, unknown>, checkType = 'row_count', connector = connectorId) =>
        t.http.post(`${API}/spaces/${space.slug}/quality/checks`).set(bearer(admin)).send({
          product_id: orders.id,
          connector_id: connector,
          name: 'check',
          severity: 'high',
          check_type: checkType,
          config,
        });
      const noTable = await create({ table: 'nope', min: 1 });
      expectProblem(noTable, 422, /Table nope was not found in the source database/);
      expect(invalidFields(noTable)).toEqual(['config.table']);
      // Quoted parts match exactly: the table is "Odd Name", not "odd name".
      expect(invalidFields(await create({ table: 'public."odd name"', min: 1 }))).toEqual(['config.table']);
      expect(invalidFields(await create({ table: 'оrders', min: 1 }))).toEqual(['config.table']); // Cyrillic о
      const noColumn = await create(
        { table: 'orders', column: 'email; DROP TABLE orders', max_rate: 0 },
        'null_rate',
      );
      expectProblem(noColumn, 422, /Column email; DROP TABLE orders was not found in table public.orders/);
      expect(invalidFields(noColumn)).toEqual(['config.column']);
      expect(invalidFields(await create({ table: 'gone', expected_columns: ['id'] }, 'schema'))).toEqual([
        'config.table',
      ]);

      const existing = await check(orders, { check_type: 'row_count', config: { table: 'orders', min: 1 } });
      const update = await t.http
        .patch(`${API}/spaces/${space.slug}/quality/checks/${existing.id}`)
        .set(bearer(admin))
        .send({ config: { table: 'nope', min: 1 } });
      expect(invalidFields(update)).toEqual(['config.table']);

      // An unreachable source cannot be asked: the check is accepted and its runs say what is wrong.
      const unreachable = await t.http
        .post(`${API}/connectors/spaces/${space.slug}`)
        .set(bearer(admin))
        .send({
          name: 'Gone',
          connector_type: 'postgresql',
          config: { connection_string: databaseUrl(`${sourceName}_missing`) },
        });
      expect((await create({ table: 'nope', min: 1 }, 'row_count', unreachable.body.id)).status).toBe(201);

      const counted = await check(orders, { check_type: 'row_count', config: { table: 'doomed', min: 0 } });
      const shape = await check(orders, {
        check_type: 'schema',
        config: { table: 'doomed_too', expected_columns: ['id'] },
      });
      await source.query('DROP TABLE doomed; DROP TABLE doomed_too');
      expect(await run(user, counted.id)).toEqual(
        expect.objectContaining({
          status: 'error',
          alert_id: null,
          message:
            "Table doomed was not found in the source database (or the connector's role cannot see it).",
        }),
      );
      // For a schema check, a table that disappeared is schema drift: a failure.
      expect(await run(user, shape.id)).toEqual(
        expect.objectContaining({
          status: 'failed',
          message: 'Table doomed_too was not found (or has no columns).',
        }),
      );
    });

    it('null_rate', async () => {
      const user = await editor();
      const ok = await check(orders, {
        check_type: 'null_rate',
        config: { table: 'orders', column: 'customer_email', max_rate: 0.1 },
      });
      expect(await run(user, ok.id)).toEqual(
        expect.objectContaining({ status: 'passed', observed_value: 0.1 }),
      );
      const strict = await check(orders, {
        check_type: 'null_rate',
        config: { table: 'orders', column: 'customer_email', max_rate: 0.05 },
      });
      const failed = await run(user, strict.id);
      expect(failed).toEqual(expect.objectContaining({ status: 'failed', observed_value: 0.1 }));
      expect(failed.message).toBe('10 nulls in 100 rows (rate 0.1000); the limit is 0.05.');
      const empty = await check(orders, {
        check_type: 'null_rate',
        config: { table: 'empty_events', column: 'at', max_rate: 0 },
      });
      expect((await run(user, empty.id)).status).toBe('passed');
    });

    it('freshness: its own limit, else the product SLA, else passes with a note', async () => {
      const user = await editor();
      // The newest order is about 30 minutes old.
      const own = await check(orders, {
        check_type: 'freshness',
        config: { table: 'orders', column: 'updated_at', max_age_minutes: 60 },
      });
      const fresh = await run(user, own.id);
      expect(fresh.status).toBe('passed');
      expect(fresh.observed_value).toBeGreaterThan(29);
      expect(fresh.observed_value).toBeLessThan(40);
      // orders_src has a 10-minute SLA.
      const bySla = await check(orders, {
        check_type: 'freshness',
        config: { table: 'orders', column: 'updated_at' },
      });
      const stale = await run(user, bySla.id);
      expect(stale.status).toBe('failed');
      expect(stale.message).toContain("the limit is 10 minutes (the product's SLA)");
      expect(stale.alert_id).toEqual(expect.any(String));
      const alert = await t.http
        .get(`${API}/spaces/${space.slug}/alerts/${stale.alert_id}`)
        .set(bearer(admin));
      expect(alert.body).toEqual(
        expect.objectContaining({ alert_type: 'freshness_breach', severity: 'high', check_id: bySla.id }),
      );
      // events_src has no SLA and the check sets none: no limit.
      const unlimited = await check(events, {
        check_type: 'freshness',
        config: { table: 'orders', column: 'updated_at', max_age_minutes: null },
      });
      const noted = await run(user, unlimited.id);
      expect(noted.status).toBe('passed');
      expect(noted.message).toContain('No freshness limit is set');
      const empty = await check(events, {
        check_type: 'freshness',
        config: { table: 'empty_events', column: 'at' },
      });
      expect(await run(user, empty.id)).toEqual(
        expect.objectContaining({ status: 'passed', observed_value: null }),
      );
      const emptyLimited = await check(events, {
        check_type: 'freshness',
        config: { table: 'empty_events', column: 'at', max_age_minutes: 5 },
      });
      expect((await run(user, emptyLimited.id)).status).toBe('failed');
    });

    it('schema: expected columns, types and nullability', async () => {
      const user = await editor();
      const ok = await check(orders, {
        check_type: 'schema',
        config: {
          table: 'orders',
          expected_columns: [
            'id',
            { name: 'total', type: 'numeric' },
            { name: 'customer_email', type: 'TEXT', nullable: true },
            { name: 'updated_at', type: 'timestamptz' },
          ],
        },
      });
      expect(await run(user, ok.id)).toEqual(
        expect.objectContaining({ status: 'passed', observed_value: 0 }),
      );
      const drift = await check(orders, {
        check_type: 'schema',
        config: {
          table: 'orders',
          expected_columns: [
            'id',
            'status',
            { name: 'total', type: 'integer' },
            { name: 'customer_email', nullable: false },
          ],
          allow_extra_columns: false,
        },
      });
      const failed = await run(user, drift.id);
      expect(failed.status).toBe('failed');
      expect(failed.observed_value).toBe(4);
      expect(failed.message).toBe(
        'Schema differs: missing column status; total is numeric(12,2), expected integer; customer_email is nullable; unexpected column updated_at.',
      );
      const alert = await t.http
        .get(`${API}/spaces/${space.slug}/alerts/${failed.alert_id}`)
        .set(bearer(admin));
      expect(alert.body.alert_type).toBe('schema_change');
    });

    it('sql_assertion: returned rows are failures, read-only, capped and timed out', async () => {
      const user = await editor();
      const ok = await check(orders, {
        check_type: 'sql_assertion',
        config: { sql: 'SELECT id FROM orders WHERE total < 0;' },
      });
      expect(await run(user, ok.id)).toEqual(
        expect.objectContaining({ status: 'passed', observed_value: 0 }),
      );
      const some = await check(orders, {
        check_type: 'sql_assertion',
        config: { sql: 'SELECT id FROM orders WHERE customer_email IS NULL -- nulls are failures' },
      });
      expect(await run(user, some.id)).toEqual(
        expect.objectContaining({
          status: 'failed',
          observed_value: 10,
          message: 'The assertion returned 10 failing rows.',
        }),
      );
      const many = await check(orders, {
        check_type: 'sql_assertion',
        config: { sql: 'SELECT generate_series(1, 50000)' },
      });
      const capped = await run(user, many.id);
      expect(capped).toEqual(expect.objectContaining({ status: 'failed', observed_value: 1000 }));
      expect(capped.message).toContain('more than 1000');

      const other = await editor();
      const writes = [
        'DELETE FROM orders RETURNING id',
        'SELECT 1; DELETE FROM orders',
        'WITH gone AS (DELETE FROM orders RETURNING id) SELECT id FROM gone',
        'SELECT 1) x; DELETE FROM orders; SELECT * FROM (SELECT 1',
      ];
      // Wrapped as a subquery, a bare write is not even valid SQL; a write hidden in a function meets the read-only transaction.
      writes.push('SELECT purge_orders()', "SELECT nextval('order_numbers')");
      const reasons = [
        /syntax error/,
        /syntax error/,
        /WITH clause/,
        /syntax error|multiple commands/,
        /read-only/,
        /read-only/,
      ];
      for (const [i, sql] of writes.entries()) {
        const attempt = await check(orders, { check_type: 'sql_assertion', config: { sql } });
        expect(await run(other, attempt.id)).toEqual(
          expect.objectContaining({
            status: 'error',
            alert_id: null,
            message: expect.stringMatching(reasons[i]),
          }),
        );
      }
      const { rows } = await source.query(`SELECT count(*)::int AS n FROM orders`);
      expect(rows[0].n).toBe(100);

      const slow = await check(orders, {
        check_type: 'sql_assertion',
        config: { sql: 'SELECT pg_sleep(3)', timeout_seconds: 1 },
      });
      const started = Date.now();
      const timedOut = await run(other, slow.id);
      expect(Date.now() - started).toBeLessThan(2900);
      expect(timedOut).toEqual(
        expect.objectContaining({ status: 'error', message: expect.stringMatching(/statement timeout/) }),
      );
    });

    it('records runs with history, events and alerts, and limits runs to 10 a minute', async () => {
      const user = await editor();
      const c = await check(orders, {
        check_type: 'row_count',
        config: { table: 'orders', max: 50 },
        severity: 'critical',
      });
      const results = [];
      const clock = pinLimiterClock(t, QUIET_MINUTE);
      try {
        for (let i = 0; i < 10; i++) results.push(await run(user, c.id));
        expectProblem(await t.http.post(`${API}/quality/checks/${c.id}/run`).set(bearer(user)), 429);
      } finally {
        clock.restore();
      }
      // Ten failures of one check: ten alerts, one incident.
      expect(new Set(results.map((r) => r.alert_id)).size).toBe(10);
      const alert = await t.http
        .get(`${API}/spaces/${space.slug}/alerts/${results[0].alert_id}`)
        .set(bearer(admin));
      const incident = await t.http
        .get(`${API}/spaces/${space.slug}/incidents/${alert.body.incident_id}`)
        .set(bearer(admin));
      expect(incident.body.alerts.filter((a: { check_id: string }) => a.check_id === c.id)).toHaveLength(10);
      expect(incident.body.severity).toBe('critical');

      const history = await t.http
        .get(`${API}/spaces/${space.slug}/quality/checks/${c.id}/runs?limit=3`)
        .set(bearer(admin));
      expect(history.body.total).toBe(10);
      expect(history.body.items).toHaveLength(3);
      expect(history.body.items[0]).toEqual({
        run_id: results[9].run_id,
        check_id: c.id,
        status: 'failed',
        observed_value: 100,
        message: expect.any(String),
        alert_id: results[9].alert_id,
        source: 'manual',
        duration_ms: expect.any(Number),
        created_at: expect.stringMatching(/Z$/),
      });
      const got = await t.http.get(`${API}/spaces/${space.slug}/quality/checks/${c.id}`).set(bearer(admin));
      expect(got.body).toEqual(
        expect.objectContaining({ last_status: 'failed', last_run_at: expect.any(String) }),
      );
      const emitted = await dbQuery<{ type: string }>(
        `SELECT type FROM outbox_events WHERE payload->>'check_id' = $1 AND type LIKE 'quality_check.%'`,
        [c.id],
      );
      expect(emitted.map((e) => e.type)).toEqual(Array(10).fill('quality_check.failed'));
    });

    it('runs scheduled checks through the job runner', async () => {
      const c = await check(orders, {
        check_type: 'row_count',
        config: { table: 'orders', min: 1 },
        schedule_cron: '*/5 * * * *',
      });
      const created = await t.http
        .get(`${API}/spaces/${space.slug}/quality/checks/${c.id}`)
        .set(bearer(admin));
      expect(Date.parse(created.body.next_run_at)).toBeGreaterThan(Date.now());
      // Make this occurrence due, and the minute sweeper with it.
      await dbQuery(`UPDATE quality_checks SET next_run_at = now() - interval '1 second' WHERE id = $1`, [
        c.id,
      ]);
      await dbQuery(
        `UPDATE job_schedules SET next_run_at = now() - interval '1 second' WHERE name = 'quality.checks.sweep'`,
      );
      await t.app.get(JobRunner).drain();
      const history = await t.http
        .get(`${API}/spaces/${space.slug}/quality/checks/${c.id}/runs`)
        .set(bearer(admin));
      expect(history.body.items).toEqual([
        expect.objectContaining({ status: 'passed', source: 'schedule', observed_value: 100 }),
      ]);
      const after = await t.http.get(`${API}/spaces/${space.slug}/quality/checks/${c.id}`).set(bearer(admin));
      expect(Date.parse(after.body.next_run_at)).toBeGreaterThan(Date.now());
      // A second sweep finds nothing due: the occurrence ran once.
      await dbQuery(
        `UPDATE job_schedules SET next_run_at = now() - interval '1 second' WHERE name = 'quality.checks.sweep'`,
      );
      await t.app.get(JobRunner).drain();
      expect(
        (await t.http.get(`${API}/spaces/${space.slug}/quality/checks/${c.id}/runs`).set(bearer(admin))).body
          .total,
      ).toBe(1);
    });
  });
});

describe('connectors without ALLOW_PRIVATE_NETWORK_TARGETS', () => {
  let strict: TestApp;

  beforeAll(async () => {
    strict = await startApp({ env: { ENCRYPTION_KEY: KEY } });
  });
  afterAll(() => strict.close());

  it('refuses loopback sources on create and, for a connector stored while allowed, at connect time', async () => {
    const user = await createUser(strict.http);
    const s = await createSpace(strict.http, user);
    const res = await strict.http
      .post(`${API}/connectors/spaces/${s.slug}`)
      .set(bearer(user))
      .send({ name: 'x', connector_type: 'postgresql', config: { connection_string: sourceUrl } });
    expectProblem(res, 422, /loopback/);
    expect(invalidFields(res)).toEqual(['config.connection_string']);
    for (const host of ['localhost', '10.0.0.5', '[::1]', 'db']) {
      const refused = await strict.http
        .post(`${API}/connectors/spaces/${s.slug}`)
        .set(bearer(user))
        .send({
          name: 'x',
          connector_type: 'postgresql',
          config: { connection_string: `postgres://u@${host}/db` },
        });
      expectProblem(refused, 422);
    }
    const me = { token: (await login(strict.http, admin.email, admin.password)).token };
    const test = await strict.http
      .post(`${API}/connectors/spaces/${space.slug}/${connectorId}/test`)
      .set(bearer(me));
    expect(test.body).toEqual(
      expect.objectContaining({ success: false, error: expect.stringMatching(/loopback/) }),
    );
  });
});
