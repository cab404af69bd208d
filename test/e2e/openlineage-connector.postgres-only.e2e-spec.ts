import { Client } from 'pg';
import { RunHealthPort } from '../../src/modules/lineage-runs/run-event';
import type { AppliedRunEvent } from '../../src/modules/lineage-runs/run-event';
import { startApp, TestApp } from '../support/app';
import { databaseUrl, withServer, workerDatabase } from '../support/database';
import { bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import {
  applyEvents,
  createApiKey,
  mapNamespaces,
  olEvent,
  postEvents,
  uniqueNamespace,
} from '../support/openlineage';

const API = '/api/v1.0';

/**
 * A dataset an OpenLineage producer names by OpenLineage's PostgreSQL naming
 * (`postgres://host:port`, `database.schema.table`) is the product a
 * connector harvested from that table. The source is a real database this
 * suite creates (so it runs on PostgreSQL only).
 */
const sourceName = `${workerDatabase(process.env.JEST_WORKER_ID ?? '1')}_ol`;

describe('OpenLineage datasets matched to connector-harvested products', () => {
  let t: TestApp;
  let admin: TestUser;
  let space: TestSpace;
  let applied: AppliedRunEvent[];

  beforeAll(async () => {
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${sourceName}`);
    });
    const source = new Client({ connectionString: databaseUrl(sourceName) });
    await source.connect();
    await source.query(`
      CREATE SCHEMA staging;
      CREATE TABLE staging.orders (id bigint PRIMARY KEY, amount numeric(10,2));
      CREATE TABLE public.orders (id bigint PRIMARY KEY, amount numeric(10,2), placed_at timestamptz);`);
    await source.end();
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    admin = await createUser(t.http);
    space = await createSpace(t.http, admin);
    jest.spyOn(t.app.get(RunHealthPort), 'apply').mockImplementation(async (_em, event) => {
      applied.push(event);
    });
    jest.spyOn(t.app.get(RunHealthPort), 'applyAll').mockImplementation(async (_em, events) => {
      applied.push(...events);
    });
  });
  beforeEach(() => {
    applied = [];
  });
  afterAll(async () => {
    await t.close();
    await withServer((client) => client.query(`DROP DATABASE IF EXISTS ${sourceName} WITH (FORCE)`));
  });

  it('resolves postgres://host:port + database.schema.table to the harvested products, creating none', async () => {
    const connector = await t.http
      .post(`${API}/connectors/spaces/${space.slug}`)
      .set(bearer(admin))
      .send({
        name: 'Warehouse',
        connector_type: 'postgresql',
        config: { connection_string: `postgres://postgres@127.0.0.1:5432/${sourceName}?sslmode=disable` },
      });
    expect(connector.status).toBe(201);
    const sync = await t.http
      .post(`${API}/connectors/spaces/${space.slug}/${connector.body.id}/sync`)
      .set(bearer(admin));
    expect(sync.body).toEqual(expect.objectContaining({ status: 'succeeded', products_created: 2 }));
    const listed = await t.http.get(`${API}/catalog/spaces/${space.slug}/products`).set(bearer(admin));
    const byName = Object.fromEntries(
      (listed.body.items as { id: string; name: string }[]).map((p) => [p.name, p.id]),
    );

    const jobs = uniqueNamespace('airflow');
    await mapNamespaces(t.http, admin, space, [
      { namespace: 'postgres://127.0.0.1:5432', create_products: false },
      { namespace: jobs, create_products: false },
    ]);
    const event = olEvent('airflow-task-fail', {
      'postgres://warehouse.internal:5432': 'postgres://127.0.0.1:5432',
      'airflow-prod': jobs,
      'shop.staging.orders': `${sourceName}.staging.orders`,
      'shop.public.orders': `${sourceName}.public.orders`,
    });
    const key = await createApiKey(t.http, admin);
    expect((await postEvents(t, key, event)).status).toBe(201);
    await applyEvents(t);

    expect(applied).toEqual([
      expect.objectContaining({
        eventType: 'FAIL',
        inputs: [
          {
            productId: byName['staging.orders'],
            namespace: 'postgres://127.0.0.1:5432',
            name: `${sourceName}.staging.orders`,
          },
        ],
        outputs: [
          {
            productId: byName.orders,
            namespace: 'postgres://127.0.0.1:5432',
            name: `${sourceName}.public.orders`,
          },
        ],
      }),
    ]);
    const graph = await t.http
      .get(`${API}/catalog/spaces/${space.slug}/products/${byName.orders}/lineage?direction=upstream`)
      .set(bearer(admin));
    expect(graph.body.edges).toEqual([
      {
        upstream_id: byName['staging.orders'],
        downstream_id: byName.orders,
        job: { namespace: jobs, name: 'orders_daily.load_orders' },
        column_lineage: [],
      },
    ]);
    const after = await t.http.get(`${API}/catalog/spaces/${space.slug}/products`).set(bearer(admin));
    expect(after.body.total).toBe(2);
  });
});
