import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const SECRET = 'n0t-f0r-your-eyes';

describe('connectors and source systems', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    [admin, editor, viewer] = await Promise.all([createUser(t.http), createUser(t.http), createUser(t.http)]);
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
  });
  afterAll(() => t.close());

  const connectors = (s: TestSpace = space) => `${API}/connectors/spaces/${s.slug}`;
  const systems = (s: TestSpace = space) => `${API}/spaces/${s.slug}/source-systems`;

  async function createConnector(fields: Record<string, unknown> = {}, s: TestSpace = space) {
    const res = await t.http
      .post(connectors(s))
      .set(bearer(editor))
      .send({
        name: 'Warehouse',
        connector_type: 'postgresql',
        config: { connection_string: `postgres://reader:${SECRET}@127.0.0.1:1/warehouse?sslmode=disable` },
        ...fields,
      });
    if (res.status !== 201) throw new Error(`create connector: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  it('creates a connector, seals the connection string and never returns it', async () => {
    const created = await createConnector();
    expect(created).toEqual({
      id: expect.any(String),
      space_id: space.id,
      name: 'Warehouse',
      connector_type: 'postgresql',
      source_system_id: null,
      config: { connection_string_set: true, host: '127.0.0.1', port: 1, database: 'warehouse' },
      last_tested_at: null,
      last_test_status: null,
      last_synced_at: null,
      last_sync_status: null,
      last_error: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const reads = [
      await t.http.get(connectors()).set(bearer(viewer)),
      await t.http.get(`${connectors()}/${created.id}`).set(bearer(viewer)),
    ];
    for (const res of reads) {
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
      expect(JSON.stringify(res.body)).not.toContain('connection_string"');
    }
    expect(reads[0].body.items.map((c: { id: string }) => c.id)).toContain(created.id);
    const [row] = await dbQuery<{ config_sealed: string }>(
      `SELECT config_sealed FROM connectors WHERE id = $1`,
      [created.id],
    );
    expect(row.config_sealed).toMatch(/^v1\./);
    expect(row.config_sealed).not.toContain(SECRET);
    expect(row.config_sealed).not.toContain('reader');
  });

  it('validates the connection string and the connector fields (422)', async () => {
    const cases: [unknown, string][] = [
      ['mysql://a:b@db.example.com/x', 'config.connection_string'],
      ['not a url', 'config.connection_string'],
      ['postgres://a@db.example.com', 'config.connection_string'],
      // Cloud metadata and link-local addresses stay refused even when private targets are allowed.
      ['postgres://a@169.254.169.254/db', 'config.connection_string'],
      ['postgres://a@[fe80::1]/db', 'config.connection_string'],
    ];
    for (const [connection_string, field] of cases) {
      const res = await t.http
        .post(connectors())
        .set(bearer(editor))
        .send({ name: 'x', connector_type: 'postgresql', config: { connection_string } });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual([field]);
    }
    const leaky = await t.http
      .post(connectors())
      .set(bearer(editor))
      .send({
        name: 'x',
        connector_type: 'postgresql',
        config: { connection_string: `postgres://a:${SECRET}@h/db?x=1` },
      });
    expectProblem(leaky, 422);
    expect(JSON.stringify(leaky.body)).not.toContain(SECRET);
    const bad = await t.http
      .post(connectors())
      .set(bearer(editor))
      .send({
        name: '',
        connector_type: 'mysql',
        config: { connection_string: 'postgres://a@h/db', password: 'x' },
      });
    expect(invalidFields(bad).sort()).toEqual(['config.password', 'connector_type', 'name']);
    const other = await createSpace(t.http, admin);
    const foreign = await t.http
      .post(systems(other))
      .set(bearer(admin))
      .send({ name: 'ERP', system_type: 'erp' });
    const wrong = await t.http
      .post(connectors())
      .set(bearer(editor))
      .send({
        name: 'x',
        connector_type: 'postgresql',
        source_system_id: foreign.body.id,
        config: { connection_string: 'postgres://a@h/db' },
      });
    expect(invalidFields(wrong)).toEqual(['source_system_id']);
  });

  it('needs edit access to write, any member to read', async () => {
    const created = await createConnector();
    const body = {
      name: 'x',
      connector_type: 'postgresql',
      config: { connection_string: 'postgres://a@h/db' },
    };
    expectProblem(await t.http.post(connectors()).set(bearer(viewer)).send(body), 403);
    expectProblem(await t.http.delete(`${connectors()}/${created.id}`).set(bearer(viewer)), 403);
    expectProblem(await t.http.post(`${connectors()}/${created.id}/test`).set(bearer(viewer)), 403);
    expectProblem(await t.http.post(`${connectors()}/${created.id}/sync`).set(bearer(viewer)), 403);
    const stranger = await createUser(t.http);
    expectProblem(await t.http.get(connectors()).set(bearer(stranger)), 404);
  });

  it('reports an unreachable source as a failed test, without the secret', async () => {
    const created = await createConnector();
    const res = await t.http.post(`${connectors()}/${created.id}/test`).set(bearer(editor));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: false,
      error: expect.stringContaining('Could not connect to 127.0.0.1:1'),
      latency_ms: expect.any(Number),
      server_version: null,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    const after = await t.http.get(`${connectors()}/${created.id}`).set(bearer(viewer));
    expect(after.body).toEqual(
      expect.objectContaining({ last_test_status: 'failed', last_tested_at: expect.any(String) }),
    );
    const sync = await t.http.post(`${connectors()}/${created.id}/sync`).set(bearer(editor));
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual({
      status: 'failed',
      products_created: 0,
      products_updated: 0,
      tables_found: 0,
      error: expect.stringContaining('Could not connect'),
    });
  });

  it('deletes a connector (404 after, and for unknown ids)', async () => {
    const created = await createConnector();
    await t.http.delete(`${connectors()}/${created.id}`).set(bearer(editor)).expect(204);
    expectProblem(await t.http.get(`${connectors()}/${created.id}`).set(bearer(viewer)), 404);
    expectProblem(await t.http.delete(`${connectors()}/${created.id}`).set(bearer(editor)), 404);
    expectProblem(await t.http.post(`${connectors()}/${created.id}/test`).set(bearer(editor)), 404);
    expectProblem(await t.http.delete(`${connectors()}/nope`).set(bearer(editor)), 422);
  });

  it('manages source systems; deleting one unlinks its connectors first', async () => {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    const created = await t.http
      .post(systems(s))
      .set(bearer(editor))
      .send({ name: 'Billing ERP', system_type: 'erp', description: 'SAP' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      space_id: s.id,
      name: 'Billing ERP',
      system_type: 'erp',
      description: 'SAP',
      connector_count: 0,
      created_at: expect.stringMatching(/Z$/),
    });
    expectProblem(
      await t.http.post(systems(s)).set(bearer(editor)).send({ name: 'billing erp', system_type: 'x' }),
      409,
    );
    expectProblem(
      await t.http.post(systems(s)).set(bearer(viewer)).send({ name: 'v', system_type: 'x' }),
      403,
    );
    expectProblem(await t.http.post(systems(s)).set(bearer(editor)).send({ name: 'v' }), 422);
    await t.http.post(systems(s)).set(bearer(editor)).send({ name: 'Analytics', system_type: 'warehouse' });

    const a = await createConnector({ source_system_id: created.body.id }, s);
    const b = await createConnector({ source_system_id: created.body.id, name: 'Second' }, s);
    expect(a.source_system_id).toBe(created.body.id);
    const list = await t.http.get(systems(s)).set(bearer(viewer));
    expect(list.body.total).toBe(2);
    expect(
      list.body.items.map((x: { name: string; connector_count: number }) => [x.name, x.connector_count]),
    ).toEqual([
      ['Analytics', 0],
      ['Billing ERP', 2],
    ]);

    expectProblem(await t.http.delete(`${systems(s)}/${created.body.id}`).set(bearer(viewer)), 403);
    await t.http
      .delete(`${systems(s)}/${created.body.id}`)
      .set(bearer(editor))
      .expect(204);
    for (const id of [a.id, b.id]) {
      const connector = await t.http.get(`${connectors(s)}/${id}`).set(bearer(viewer));
      expect(connector.body.source_system_id).toBeNull();
    }
    expect(
      (await t.http.get(systems(s)).set(bearer(viewer))).body.items.map((x: { name: string }) => x.name),
    ).toEqual(['Analytics']);
    expectProblem(await t.http.delete(`${systems(s)}/${created.body.id}`).set(bearer(editor)), 404);
  });

  it('pages both lists as {items, total} with skip and limit', async () => {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    const made: string[] = [];
    for (const name of ['One', 'Two', 'Three']) made.push((await createConnector({ name }, s)).id);
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      await t.http.post(systems(s)).set(bearer(editor)).send({ name, system_type: 'erp' }).expect(201);
    }

    const first = await t.http.get(connectors(s)).query({ limit: 2 }).set(bearer(viewer));
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((c: { id: string }) => c.id)).toEqual(made.slice(0, 2));
    const rest = await t.http.get(connectors(s)).query({ skip: 2, limit: 2 }).set(bearer(viewer));
    expect(rest.body).toEqual({ items: [expect.objectContaining({ id: made[2] })], total: 3 });

    const page = await t.http.get(systems(s)).query({ skip: 1, limit: 1 }).set(bearer(viewer));
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.items.map((x: { name: string }) => x.name)).toEqual(['Beta']);
    const beyond = await t.http.get(systems(s)).query({ skip: 10 }).set(bearer(viewer));
    expect(beyond.body).toEqual({ items: [], total: 3 });

    for (const url of [connectors(s), systems(s)]) {
      const res = await t.http.get(url).query({ limit: 201 }).set(bearer(viewer));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['limit']);
    }
  });
});
