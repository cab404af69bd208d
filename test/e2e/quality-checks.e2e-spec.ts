import { startApp, TestApp } from '../support/app';
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
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('quality checks (definitions, pushed results, run rules)', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  let space: TestSpace;
  let product: { id: string; name: string };
  let connectorId: string;

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    [admin, editor, viewer, stranger] = await Promise.all([
      createUser(t.http),
      createUser(t.http),
      createUser(t.http),
      createUser(t.http),
    ]);
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    product = await createProduct(t.http, editor, space, { name: 'orders' });
    const connector = await t.http
      .post(`${API}/connectors/spaces/${space.slug}`)
      .set(bearer(editor))
      .send({
        name: 'db',
        connector_type: 'postgresql',
        config: { connection_string: 'postgres://u@127.0.0.1:1/db' },
      });
    connectorId = connector.body.id;
  });
  afterAll(() => t.close());

  const base = () => `${API}/spaces/${space.slug}/quality/checks`;

  async function create(fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(base())
      .set(bearer(editor))
      .send({
        product_id: product.id,
        name: 'Orders exist',
        check_type: 'row_count',
        severity: 'high',
        config: { table: 'orders', min: 1 },
        connector_id: connectorId,
        ...fields,
      });
    if (res.status !== 201) throw new Error(`create check: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  it('creates a check', async () => {
    const created = await create({ description: 'At least one order', schedule_cron: '*/15 * * * *' });
    expect(created).toEqual({
      id: expect.any(String),
      space_id: space.id,
      product_id: product.id,
      connector_id: connectorId,
      name: 'Orders exist',
      description: 'At least one order',
      check_type: 'row_count',
      severity: 'high',
      config: { table: 'orders', min: 1 },
      schedule_cron: '*/15 * * * *',
      is_enabled: true,
      next_run_at: expect.stringMatching(/Z$/),
      last_run_at: null,
      last_status: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const next = new Date(created.next_run_at);
    expect(next.getUTCMinutes() % 15).toBe(0);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    const disabled = await create({ schedule_cron: '0 * * * *', is_enabled: false });
    expect(disabled.next_run_at).toBeNull();
  });

  it('validates references, configuration and schedule (422 naming each field)', async () => {
    const other = await createSpace(t.http, stranger);
    const foreign = await createProduct(t.http, stranger, other);
    const res = await t.http
      .post(base())
      .set(bearer(editor))
      .send({
        product_id: foreign.id,
        name: 'x',
        check_type: 'row_count',
        severity: 'high',
        config: { table: 'a.b.c; DROP TABLE users', min: 1 },
        connector_id: '00000000-0000-4000-8000-000000000000',
        schedule_cron: 'every minute',
      });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual([
      'config.table',
      'connector_id',
      'product_id',
      'schedule_cron',
    ]);

    const cases: [Record<string, unknown>, string[]][] = [
      [
        { check_type: 'null_rate', config: { table: 'orders', column: '', max_rate: 1.5 } },
        ['config.column', 'config.max_rate'],
      ],
      [{ check_type: 'freshness', config: { table: 'orders' } }, ['config.column']],
      [
        { check_type: 'schema', config: { table: 'orders', expected_columns: [] } },
        ['config.expected_columns'],
      ],
      [{ check_type: 'sql_assertion', config: { sql: '' } }, ['config.sql']],
      [{ check_type: 'row_count', config: { table: 'orders', min: 1, bogus: true } }, ['config.bogus']],
      [{ check_type: 'custom', config: {}, schedule_cron: '* * * * *' }, ['schedule_cron']],
      [{ schedule_cron: '61 * * * *' }, ['schedule_cron']],
      [{ check_type: 'magic' }, ['check_type']],
      [{ severity: 'urgent' }, ['severity']],
      [{ config: 'table=orders' }, ['config']],
      [{ extra: 1 }, ['extra']],
    ];
    for (const [fields, expected] of cases) {
      const bad = await t.http
        .post(base())
        .set(bearer(editor))
        .send({
          product_id: product.id,
          name: 'x',
          check_type: 'row_count',
          severity: 'low',
          config: { table: 'orders', min: 1 },
          ...fields,
        });
      expectProblem(bad, 422);
      expect({ fields, errors: invalidFields(bad).sort() }).toEqual({ fields, errors: expected.sort() });
    }
  });

  it('needs edit access to write, any member to read, and hides the space from strangers', async () => {
    const body = { product_id: product.id, name: 'x', check_type: 'custom', severity: 'low', config: {} };
    expectProblem(await t.http.post(base()).set(bearer(viewer)).send(body), 403);
    expectProblem(await t.http.get(base()).set(bearer(stranger)), 404);
    const created = await create();
    expect((await t.http.get(`${base()}/${created.id}`).set(bearer(viewer))).status).toBe(200);
    expectProblem(await t.http.patch(`${base()}/${created.id}`).set(bearer(viewer)).send({ name: 'y' }), 403);
    expectProblem(await t.http.delete(`${base()}/${created.id}`).set(bearer(viewer)), 403);
  });

  it('lists, updates and deletes', async () => {
    const s = await createSpace(t.http, admin);
    const p1 = await createProduct(t.http, admin, s, { name: 'a' });
    const p2 = await createProduct(t.http, admin, s, { name: 'b' });
    const url = `${API}/spaces/${s.slug}/quality/checks`;
    const make = async (fields: Record<string, unknown>) =>
      (
        await t.http
          .post(url)
          .set(bearer(admin))
          .send({ name: 'c', severity: 'low', check_type: 'custom', config: {}, ...fields })
      ).body;
    const c1 = await make({ product_id: p1.id });
    const c2 = await make({ product_id: p2.id, check_type: 'row_count', config: { table: 't', max: 5 } });
    const c3 = await make({ product_id: p1.id });
    const all = await t.http.get(url).set(bearer(admin));
    expect(all.body.total).toBe(3);
    expect(all.body.items.map((c: { id: string }) => c.id)).toEqual([c3.id, c2.id, c1.id]);
    const byProduct = await t.http.get(`${url}?product_id=${p1.id}`).set(bearer(admin));
    expect(byProduct.body.items.map((c: { id: string }) => c.id)).toEqual([c3.id, c1.id]);
    const byType = await t.http.get(`${url}?check_type=row_count&limit=1`).set(bearer(admin));
    expect(byType.body).toEqual({ items: [expect.objectContaining({ id: c2.id })], total: 1 });

    const patched = await t.http
      .patch(`${url}/${c2.id}`)
      .set(bearer(admin))
      .send({
        name: 'Small table',
        severity: 'critical',
        config: { table: 'sales.t', min: 1, max: 9 },
        schedule_cron: '0 6 * * *',
      });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(
      expect.objectContaining({
        name: 'Small table',
        severity: 'critical',
        config: { table: 'sales.t', min: 1, max: 9 },
        schedule_cron: '0 6 * * *',
        next_run_at: expect.stringMatching(/T06:00:00\.000Z$/),
      }),
    );
    const off = await t.http.patch(`${url}/${c2.id}`).set(bearer(admin)).send({ is_enabled: false });
    expect(off.body.next_run_at).toBeNull();
    const bad = await t.http
      .patch(`${url}/${c2.id}`)
      .set(bearer(admin))
      .send({ config: { table: 't' } });
    expect(invalidFields(bad)).toEqual(['config.min']);
    expectProblem(
      await t.http.patch(`${url}/${c2.id}`).set(bearer(admin)).send({ check_type: 'custom' }),
      422,
    );

    await t.http.delete(`${url}/${c1.id}`).set(bearer(admin)).expect(204);
    expectProblem(await t.http.get(`${url}/${c1.id}`).set(bearer(admin)), 404);
    expectProblem(await t.http.delete(`${url}/${c1.id}`).set(bearer(admin)), 404);
    // A check of another space is missing here.
    expectProblem(await t.http.get(`${base()}/${c2.id}`).set(bearer(admin)), 404);
  });

  it('records pushed results like runs: a failure opens an alert', async () => {
    const custom = await create({
      check_type: 'custom',
      config: { suite: 'dbt' },
      connector_id: null,
      name: 'dbt tests',
    });
    const passed = await t.http
      .post(`${API}/quality/checks/${custom.id}/results`)
      .set(bearer(editor))
      .send({ passed: true, observed_value: 0, message: 'All 42 dbt tests passed' });
    expect(passed.status).toBe(200);
    expect(passed.body).toEqual({
      run_id: expect.any(String),
      status: 'passed',
      observed_value: 0,
      message: 'All 42 dbt tests passed',
      alert_id: null,
    });
    const failed = await t.http
      .post(`${API}/quality/checks/${custom.id}/results`)
      .set(bearer(editor))
      .send({ passed: false, observed_value: 3 });
    expect(failed.body).toEqual(
      expect.objectContaining({
        status: 'failed',
        observed_value: 3,
        message: 'Reported failed.',
        alert_id: expect.any(String),
      }),
    );
    const alert = await t.http
      .get(`${API}/spaces/${space.slug}/alerts/${failed.body.alert_id}`)
      .set(bearer(viewer));
    expect(alert.body).toEqual(
      expect.objectContaining({
        alert_type: 'quality_check_failed',
        severity: 'high',
        check_id: custom.id,
        run_id: failed.body.run_id,
        product_id: product.id,
        message: 'dbt tests: Reported failed.',
        metadata: { check_type: 'custom', observed_value: 3, source: 'pushed' },
      }),
    );
    const runs = await t.http.get(`${base()}/${custom.id}/runs`).set(bearer(viewer));
    expect(runs.body.items.map((r: { status: string; source: string }) => [r.status, r.source])).toEqual([
      ['failed', 'pushed'],
      ['passed', 'pushed'],
    ]);
    const events = await dbQuery<{ type: string }>(
      `SELECT type FROM outbox_events WHERE payload->>'check_id' = $1 AND type LIKE 'quality_check.%' ORDER BY occurred_at`,
      [custom.id],
    );
    expect(events.map((e) => e.type)).toEqual(['quality_check.passed', 'quality_check.failed']);

    expectProblem(
      await t.http
        .post(`${API}/quality/checks/${custom.id}/results`)
        .set(bearer(editor))
        .send({ passed: 'yes' }),
      422,
    );
    expectProblem(
      await t.http
        .post(`${API}/quality/checks/${custom.id}/results`)
        .set(bearer(viewer))
        .send({ passed: true }),
      403,
    );
    expectProblem(
      await t.http
        .post(`${API}/quality/checks/${custom.id}/results`)
        .set(bearer(stranger))
        .send({ passed: true }),
      404,
    );
  });

  it('refuses to run a custom check, and reports a check without a connector or a reachable source as an error', async () => {
    const custom = await create({ check_type: 'custom', config: {}, connector_id: null });
    expectProblem(await t.http.post(`${API}/quality/checks/${custom.id}/run`).set(bearer(editor)), 409);

    const orphan = await create({ connector_id: null });
    const noConnector = await t.http.post(`${API}/quality/checks/${orphan.id}/run`).set(bearer(editor));
    expect(noConnector.status).toBe(200);
    expect(noConnector.body).toEqual({
      run_id: expect.any(String),
      status: 'error',
      observed_value: null,
      message: 'The check has no connector to run on.',
      alert_id: null,
    });
    const unreachable = await create();
    const refused = await t.http.post(`${API}/quality/checks/${unreachable.id}/run`).set(bearer(editor));
    expect(refused.body).toEqual(
      expect.objectContaining({
        status: 'error',
        alert_id: null,
        message: expect.stringContaining('Could not connect'),
      }),
    );
    const got = await t.http.get(`${base()}/${unreachable.id}`).set(bearer(viewer));
    expect(got.body.last_status).toBe('error');

    expectProblem(await t.http.post(`${API}/quality/checks/${unreachable.id}/run`).set(bearer(viewer)), 403);
    expectProblem(
      await t.http.post(`${API}/quality/checks/${unreachable.id}/run`).set(bearer(stranger)),
      404,
    );
    expectProblem(
      await t.http.post(`${API}/quality/checks/00000000-0000-4000-8000-000000000000/run`).set(bearer(editor)),
      404,
    );
    expectProblem(await t.http.post(`${API}/quality/checks/nope/run`).set(bearer(editor)), 422);
  });
});
