import { Client } from 'pg';
import { connectorSecretContext } from '../../src/modules/connectors/connectors.service';
import { SecretBox } from '../../src/platform/crypto/secret-box.service';
import { startApp, TestApp } from '../support/app';
import { databaseUrl, SERVER_URL, withServer, workerDatabase } from '../support/database';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem } from '../support/problem';
import { eventually } from '../support/server-process';

const API = '/api/v1.0';
const KEY = 'ef'.repeat(32);

/**
 * The warm source connections of the visual query and quality checks
 * (SourceConnectionPool), against a real source database this suite creates
 * (PostgreSQL only). CONNECTOR_POOL_SIZE=1: every use of the connector gets
 * the same connection, so whatever one use leaves in its session would be
 * seen by the next.
 */
const sourceName = `${workerDatabase(process.env.JEST_WORKER_ID ?? '1')}_pool`;
const reader = `${sourceName}_reader`;
const other = `${sourceName}_other`;
const urlAs = (role: string) => {
  const url = new URL(SERVER_URL);
  url.username = role;
  url.pathname = `/${sourceName}`;
  return url.toString();
};

interface Probe {
  pid: number;
  who: string;
  tz: string;
  statement_timeout: string;
  read_only: string;
  advisory_locks: number;
  probe: string | null;
}

describe('pooled source connections (visual query and quality checks)', () => {
  let source: Client;
  let t: TestApp;
  let admin: TestUser;
  let space: TestSpace;
  let connectorId: string;
  let product: { id: string };

  beforeAll(async () => {
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`);
      for (const role of [reader, other]) {
        await client.query(`DROP ROLE IF EXISTS ${role}`);
        await client.query(`CREATE ROLE ${role} LOGIN`);
      }
      await client.query(`CREATE DATABASE ${sourceName}`);
      // Not UTC, so that the visual query's UTC (SET LOCAL) is seen to end with its use.
      await client.query(`ALTER DATABASE ${sourceName} SET timezone TO 'America/New_York'`);
    });
    source = new Client({ connectionString: databaseUrl(sourceName) });
    await source.connect();
    await source.query(`
      CREATE VIEW session_probe AS SELECT pg_backend_pid() AS pid, current_user::text AS who,
        current_setting('TimeZone') AS tz, current_setting('statement_timeout') AS statement_timeout,
        current_setting('transaction_read_only') AS read_only,
        (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::int AS advisory_locks,
        current_setting('verity.probe', true) AS probe;
      CREATE VIEW slowish AS SELECT 1 AS n FROM pg_sleep(0.2);
      GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}, ${other};
    `);
    t = await startApp({
      env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', ENCRYPTION_KEY: KEY, CONNECTOR_POOL_SIZE: '1' },
    });
    admin = await createUser(t.http);
    space = await createSpace(t.http, admin);
    const created = await t.http
      .post(`${API}/connectors/spaces/${space.slug}`)
      .set(bearer(admin))
      .send({ name: 'Pooled', connector_type: 'postgresql', config: { connection_string: urlAs(reader) } });
    expect(created.status).toBe(201);
    connectorId = created.body.id;
    product = await createProduct(t.http, admin, space, { name: 'pooled_src' });
  });

  afterAll(async () => {
    await t.close();
    await source.end();
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`);
      for (const role of [reader, other]) await client.query(`DROP ROLE IF EXISTS ${role}`);
    });
  });

  /** A fresh editor per use: queries and check runs are limited per caller. */
  async function editor(): Promise<TestUser> {
    const user = await createUser(t.http);
    await addMember(t.http, admin, space, user, 'editor');
    return user;
  }

  const execute = (user: TestUser, table: string) =>
    t.http
      .post(`${API}/query/execute`)
      .set(bearer(user))
      .send({ space_slug: space.slug, connector_id: connectorId, query: { table } });

  async function probe(): Promise<Probe> {
    const res = await execute(await editor(), 'session_probe');
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    const columns = (res.body.columns as { name: string }[]).map((c) => c.name);
    return Object.fromEntries(columns.map((name, i) => [name, res.body.rows[0][i]])) as unknown as Probe;
  }

  /** Runs a sql_assertion check on the connector; answers the run. */
  async function assertion(sql: string): Promise<{ status: string; observed_value: number | null }> {
    const check = await t.http.post(`${API}/spaces/${space.slug}/quality/checks`).set(bearer(admin)).send({
      product_id: product.id,
      connector_id: connectorId,
      name: 'pool',
      severity: 'low',
      check_type: 'sql_assertion',
      config: { sql },
    });
    expect(check.status).toBe(201);
    const run = await t.http.post(`${API}/quality/checks/${check.body.id}/run`).set(bearer(await editor()));
    expect(run.status).toBe(200);
    return run.body;
  }

  const sourceConnections = async (role?: string) =>
    (
      await source.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'verity-connector'
            AND ($1::text IS NULL OR usename = $1)`,
        [role ?? null],
      )
    ).rows[0].n;

  it('reuses one warm connection, each use in its own read-only transaction with its own settings', async () => {
    const first = await probe();
    expect(first).toEqual(
      expect.objectContaining({
        who: reader,
        tz: 'UTC',
        statement_timeout: '10s',
        read_only: 'on',
        advisory_locks: 0,
      }),
    );
    const second = await probe();
    expect(second.pid).toBe(first.pid);
    // A check sets no time zone: the visual query's UTC ended with its transaction.
    expect(await assertion(`SELECT 1 WHERE current_setting('TimeZone') <> 'America/New_York'`)).toEqual(
      expect.objectContaining({ status: 'passed' }),
    );
    expect(await sourceConnections()).toBe(1);
  });

  it('leaves nothing of a use in the session: settings and advisory locks are gone before the next use', async () => {
    const { pid } = await probe();
    // A session-level setting and a session advisory lock: a lock outlives a ROLLBACK, only DISCARD ALL drops it.
    expect(
      await assertion(`SELECT set_config('verity.probe', 'leaked', false), pg_advisory_lock(4242)`),
    ).toEqual(expect.objectContaining({ status: 'failed', observed_value: 1 }));
    const next = await probe();
    expect(next.pid).toBe(pid);
    expect(next.advisory_locks).toBe(0);
    expect(next.probe ?? '').toBe('');
    // pg_locks covers the whole server: only this source's lock 4242 counts.
    const held = await source.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(held.rows[0].n).toBe(0);
  });

  it('caps the connections per connector: concurrent uses wait for the one connection', async () => {
    const user = await editor();
    let most = 0;
    let running = true;
    const sampling = (async () => {
      while (running) {
        most = Math.max(most, await sourceConnections());
        await new Promise((done) => setImmediate(done));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 5 }, () => execute(user, 'slowish')));
    running = false;
    await sampling;
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(most).toBe(1);
  });

  it('uses changed settings on the next use, closing the connections opened with the old ones', async () => {
    const box = t.app.get(SecretBox);
    const reseal = (url: string) =>
      dbQuery(`UPDATE connectors SET config_sealed = $1 WHERE id = $2`, [
        box.seal(url, connectorSecretContext(connectorId)),
        connectorId,
      ]);
    expect((await probe()).who).toBe(reader);
    await reseal(urlAs(other));
    expect((await probe()).who).toBe(other);
    await eventually('the old connection to close', async () => (await sourceConnections(reader)) === 0);
    await reseal(urlAs(`${sourceName}_nobody`));
    expectProblem(await execute(await editor(), 'session_probe'), 502, /nobody/);
    await reseal(urlAs(reader));
    expect((await probe()).who).toBe(reader);
  });

  it("closes the connector's connections when it is deleted", async () => {
    await probe();
    expect(await sourceConnections()).toBe(1);
    const deleted = await t.http
      .delete(`${API}/connectors/spaces/${space.slug}/${connectorId}`)
      .set(bearer(admin));
    expect(deleted.status).toBe(204);
    await eventually('the pooled connection to close', async () => (await sourceConnections()) === 0);
  });
});
