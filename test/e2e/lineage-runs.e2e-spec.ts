import { randomUUID } from 'node:crypto';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import {
  applyEvents,
  createApiKey,
  mapNamespaces,
  olEvent,
  postEvents,
  uniqueNamespace,
} from '../support/openlineage';
import { expectProblem } from '../support/problem';
import { startWebhookReceiver } from '../support/webhook-receiver';

const API = '/api/v1.0';

/** The members the assertions read; the contract check holds every answer to the document. */
interface JobItem {
  id: string;
  latest_run: { run_id: string; state: string } | null;
}
interface RunItem {
  run_id: string;
  state: string;
}
interface AlertItem {
  id: string;
  status: string;
  alert_type: string;
  incident_id: string;
  message: string;
}
interface CheckItem {
  id: string;
  name: string;
}
interface Product {
  id: string;
  name: string;
}

/** One test's space, with its own OpenLineage namespaces mapped to it. */
interface Setup {
  space: TestSpace;
  datasets: string;
  jobs: string;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The Airflow provider's task event (test/fixtures), as another event of a run of the same shape. */
interface AirflowRun {
  eventType: 'START' | 'RUNNING' | 'COMPLETE' | 'FAIL' | 'ABORT' | 'OTHER';
  eventTime: string;
  runId: string;
  job?: string;
  errorMessage?: string;
}

describe('lineage runs (OpenLineage run health, over the ingestion endpoint)', () => {
  let t: TestApp;
  let admin: TestUser;
  let viewer: TestUser;
  let key: { token: string };

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    admin = await createUser(t.http);
    viewer = await createUser(t.http);
    key = await createApiKey(t.http, admin);
  });
  afterAll(() => t.close());

  async function setUp(): Promise<Setup> {
    const space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, viewer, 'viewer');
    const datasets = uniqueNamespace('postgres://warehouse');
    const jobs = uniqueNamespace('airflow');
    await mapNamespaces(t.http, admin, space, [
      { namespace: datasets, create_products: true },
      { namespace: jobs, create_products: false },
    ]);
    return { space, datasets, jobs };
  }

  /** The Airflow fixture (task `orders_daily.load_orders`: shop.staging.orders -> shop.public.orders) as this event. */
  function airflow(setup: Setup, run: AirflowRun): Json {
    const event = olEvent('airflow-task-fail', {
      'airflow-prod': setup.jobs,
      'postgres://warehouse.internal:5432': setup.datasets,
    });
    event.eventType = run.eventType;
    event.eventTime = run.eventTime;
    event.run.runId = run.runId;
    if (run.job) event.job.name = run.job;
    if (run.errorMessage) event.run.facets.errorMessage.message = run.errorMessage;
    else if (run.eventType !== 'FAIL') delete event.run.facets.errorMessage;
    return event;
  }

  /** Posts events as the OpenLineage HTTP transport does, then lets the processor apply them. */
  async function send(...events: Json[]): Promise<void> {
    const res = await postEvents(t, key, events.length === 1 ? events[0] : events);
    expect(res.status).toBe(201);
    await applyEvents(t);
  }

  async function productNamed(space: TestSpace, name: string): Promise<Product> {
    const res = await t.http
      .get(`${API}/catalog/spaces/${space.slug}/products?limit=200`)
      .set(bearer(viewer));
    const found = (res.body.items as Product[]).find((p) => p.name === name);
    if (!found) throw new Error(`no product ${name}`);
    return found;
  }

  const jobsOf = async (space: TestSpace) => {
    const res = await t.http.get(`${API}/spaces/${space.slug}/lineage/jobs`).set(bearer(viewer));
    expect(res.status).toBe(200);
    return res.body as { items: JobItem[]; total: number };
  };

  const runsOf = async (space: TestSpace, jobId: string) => {
    const res = await t.http
      .get(`${API}/spaces/${space.slug}/lineage/jobs/${jobId}/runs`)
      .set(bearer(viewer));
    expect(res.status).toBe(200);
    return res.body as { items: RunItem[]; total: number };
  };

  const alertsOf = async (space: TestSpace, product: Product) => {
    const res = await t.http
      .get(`${API}/spaces/${space.slug}/alerts`)
      .query({ product_id: product.id })
      .set(bearer(viewer));
    expect(res.status).toBe(200);
    return res.body.items as AlertItem[];
  };

  it('keeps a failed Airflow run with its error, and raises an alert and an incident on its output', async () => {
    const setup = await setUp();
    const { space } = setup;
    const runId = randomUUID();
    await send(airflow(setup, { eventType: 'START', eventTime: '2026-11-28T04:00:00.000Z', runId }));
    const source = await productNamed(space, 'shop.staging.orders');
    const target = await productNamed(space, 'shop.public.orders');
    const dashboard = await createProduct(t.http, admin, space, {
      name: `Orders dashboard ${runId.slice(0, 6)}`,
    });
    const edge = await t.http
      .post(`${API}/catalog/spaces/${space.slug}/lineage`)
      .set(bearer(admin))
      .send({ upstream_id: target.id, downstream_id: dashboard.id });
    expect(edge.status).toBe(201);
    await send(airflow(setup, { eventType: 'FAIL', eventTime: '2026-11-28T04:02:30.000Z', runId }));

    const jobs = await jobsOf(space);
    expect(jobs.total).toBe(1);
    const [job] = jobs.items;
    expect(job).toMatchObject({
      namespace: setup.jobs,
      name: 'orders_daily.load_orders',
      latest_run: { run_id: runId, state: 'FAIL', duration_ms: 150_000 },
      last_event_time: '2026-11-28T04:02:30.000Z',
    });

    const runs = await runsOf(space, job.id);
    expect(runs).toEqual({
      total: 1,
      items: [
        {
          id: expect.any(String),
          run_id: runId,
          state: 'FAIL',
          started_at: '2026-11-28T04:00:00.000Z',
          ended_at: '2026-11-28T04:02:30.000Z',
          duration_ms: 150_000,
          error_message: 'relation "staging.orders" does not exist',
          job: { id: job.id, namespace: setup.jobs, name: 'orders_daily.load_orders' },
          parent: {
            run_id: '018f7600-0000-7000-8000-000000000001',
            job_namespace: setup.jobs,
            job_name: 'orders_daily',
          },
          input_product_ids: [source.id],
          output_product_ids: [target.id],
          first_event_time: '2026-11-28T04:00:00.000Z',
          last_event_time: '2026-11-28T04:02:30.000Z',
        },
      ],
    });

    const alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      alert_type: 'anomaly',
      severity: 'high',
      status: 'open',
      metadata: {
        source: 'openlineage',
        job_namespace: setup.jobs,
        job_name: 'orders_daily.load_orders',
        run_id: runId,
        state: 'FAIL',
        error_message: 'relation "staging.orders" does not exist',
      },
    });
    expect(alerts[0].message).toContain('relation "staging.orders" does not exist');
    expect(await alertsOf(space, source)).toEqual([]);
    const incident = await t.http
      .get(`${API}/spaces/${space.slug}/incidents/${alerts[0].incident_id}`)
      .set(bearer(viewer));
    expect(incident.status).toBe(200);
    expect(incident.body).toMatchObject({
      status: 'open',
      severity: 'high',
      alert_count: 1,
      root_product_id: target.id,
      blast_radius_snapshot: [dashboard.name],
    });

    for (const product of [source, target]) {
      const res = await t.http
        .get(`${API}/catalog/spaces/${space.slug}/products/${product.id}/runs`)
        .set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(1);
      expect(res.body.items[0]).toMatchObject({ run_id: runId, state: 'FAIL' });
    }
  });

  it('raises one alert for a repeated failure, and resolves it when a later run of the job completes', async () => {
    const setup = await setUp();
    const { space } = setup;
    const failed = randomUUID();
    const fail = airflow(setup, { eventType: 'FAIL', eventTime: '2026-11-28T03:00:00.000Z', runId: failed });
    await send(fail);
    await send(fail);
    // The integration reporting the failure again, later: still the same failed run.
    await send(
      airflow(setup, {
        eventType: 'FAIL',
        eventTime: '2026-11-28T03:00:05.000Z',
        runId: failed,
        errorMessage: 'retry gave up',
      }),
    );
    const target = await productNamed(space, 'shop.public.orders');
    let alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].status).toBe('open');

    const later = randomUUID();
    await send(airflow(setup, { eventType: 'START', eventTime: '2026-11-28T04:00:00.000Z', runId: later }));
    expect((await alertsOf(space, target))[0].status).toBe('open');
    await send(
      airflow(setup, { eventType: 'COMPLETE', eventTime: '2026-11-28T04:10:00.000Z', runId: later }),
    );
    alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });

    const [job] = (await jobsOf(space)).items;
    expect(job.latest_run).toMatchObject({ run_id: later, state: 'COMPLETE', duration_ms: 600_000 });
    const runs = await runsOf(space, job.id);
    expect(runs.items).toEqual([
      expect.objectContaining({ run_id: later, state: 'COMPLETE', error_message: null }),
      expect.objectContaining({ run_id: failed, state: 'FAIL', error_message: 'retry gave up' }),
    ]);
    const second = await t.http
      .get(`${API}/catalog/spaces/${space.slug}/products/${target.id}/runs`)
      .query({ skip: 1, limit: 1 })
      .set(bearer(viewer));
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ total: 2, items: [expect.objectContaining({ run_id: failed })] });
  });

  it('applies the runs of one batch as it would apply its events one by one', async () => {
    const setup = await setUp();
    const { space } = setup;
    const [first, failed, later] = [randomUUID(), randomUUID(), randomUUID()];
    const at = (minute: number) => `2026-11-28T05:${String(minute).padStart(2, '0')}:00.000Z`;
    // One request: a run that completes, one that fails (and is reported again), one that completes later.
    await send(
      airflow(setup, { eventType: 'START', eventTime: at(0), runId: first }),
      airflow(setup, { eventType: 'COMPLETE', eventTime: at(2), runId: first }),
      airflow(setup, { eventType: 'START', eventTime: at(10), runId: failed }),
      airflow(setup, { eventType: 'FAIL', eventTime: at(11), runId: failed, errorMessage: 'disk full' }),
      airflow(setup, { eventType: 'RUNNING', eventTime: at(12), runId: failed }),
      airflow(setup, { eventType: 'START', eventTime: at(20), runId: later }),
      airflow(setup, { eventType: 'COMPLETE', eventTime: at(25), runId: later }),
    );
    const target = await productNamed(space, 'shop.public.orders');
    const alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'resolved', alert_type: 'anomaly' });
    const [job] = (await jobsOf(space)).items;
    expect(job.latest_run).toMatchObject({ run_id: later, state: 'COMPLETE', duration_ms: 300_000 });
    expect((await runsOf(space, job.id)).items).toEqual([
      expect.objectContaining({ run_id: later, state: 'COMPLETE', duration_ms: 300_000 }),
      expect.objectContaining({
        run_id: failed,
        state: 'FAIL',
        error_message: 'disk full',
        duration_ms: 60_000,
      }),
      expect.objectContaining({ run_id: first, state: 'COMPLETE', duration_ms: 120_000 }),
    ]);
  });

  it('converges when the events of a run arrive out of order', async () => {
    const setup = await setUp();
    const { space } = setup;
    const runId = randomUUID();
    await send(airflow(setup, { eventType: 'COMPLETE', eventTime: '2026-11-28T02:05:00.000Z', runId }));
    await send(airflow(setup, { eventType: 'START', eventTime: '2026-11-28T02:00:00.000Z', runId }));
    await send(airflow(setup, { eventType: 'RUNNING', eventTime: '2026-11-28T02:01:00.000Z', runId }));
    const target = await productNamed(space, 'shop.public.orders');
    const [job] = (await jobsOf(space)).items;
    const [run] = (await runsOf(space, job.id)).items;
    expect(run).toMatchObject({
      state: 'COMPLETE',
      started_at: '2026-11-28T02:00:00.000Z',
      ended_at: '2026-11-28T02:05:00.000Z',
      duration_ms: 300_000,
      error_message: null,
      first_event_time: '2026-11-28T02:00:00.000Z',
      last_event_time: '2026-11-28T02:05:00.000Z',
    });

    // A failure of an earlier run arriving after the job completed raises nothing: the job is past it.
    await send(
      airflow(setup, { eventType: 'FAIL', eventTime: '2026-11-28T01:00:00.000Z', runId: randomUUID() }),
    );
    expect(await alertsOf(space, target)).toEqual([]);
    const after = await jobsOf(space);
    expect(after.items[0].latest_run).toMatchObject({ run_id: runId, state: 'COMPLETE' });
    expect((await runsOf(space, job.id)).total).toBe(2);
  });

  it("turns a dbt model's dataQualityAssertions into runs of a pushed check per assertion", async () => {
    const space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, viewer, 'viewer');
    const datasets = uniqueNamespace('postgres://analytics');
    const jobs = uniqueNamespace('dbt');
    await mapNamespaces(t.http, admin, space, [
      { namespace: datasets, create_products: true },
      { namespace: jobs, create_products: false },
    ]);
    await send(
      olEvent('dbt-model-complete', { 'dbt-analytics': jobs, 'postgres://analytics-db:5432': datasets }),
    );
    const customers = await productNamed(space, 'jaffle_shop.staging.stg_customers');
    const output = await productNamed(space, 'jaffle_shop.analytics.customers');

    const checks = await t.http
      .get(`${API}/spaces/${space.slug}/quality/checks`)
      .query({ product_id: customers.id })
      .set(bearer(viewer));
    expect(checks.status).toBe(200);
    const byName = new Map<string, CheckItem>(checks.body.items.map((c: CheckItem) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual(['not_null (customer_id)', 'unique (customer_id)']);
    expect(byName.get('not_null (customer_id)')).toMatchObject({
      check_type: 'custom',
      last_status: 'passed',
    });
    expect(byName.get('unique (customer_id)')).toMatchObject({ check_type: 'custom', last_status: 'failed' });

    const runs = await t.http
      .get(`${API}/spaces/${space.slug}/quality/checks/${byName.get('unique (customer_id)')!.id}/runs`)
      .set(bearer(viewer));
    expect(runs.status).toBe(200);
    expect(runs.body.items).toEqual([expect.objectContaining({ status: 'failed', source: 'pushed' })]);

    const alerts = await alertsOf(space, customers);
    expect(alerts).toEqual([expect.objectContaining({ alert_type: 'quality_check_failed', status: 'open' })]);
    expect(await alertsOf(space, output)).toEqual([]);
    const [job] = (await jobsOf(space)).items;
    expect(job.latest_run).toMatchObject({ state: 'COMPLETE', started_at: null, duration_ms: null });
  });

  it('delivers lineage.run_failed to a subscribed webhook', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const setup = await setUp();
      const { space } = setup;
      const hook = await t.http
        .post(`${API}/spaces/${space.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url: receiver.url, event_types: ['lineage.run_failed'] });
      expect(hook.status).toBe(201);
      const types = await t.http.get(`${API}/spaces/${space.slug}/webhooks/event-types`).set(bearer(admin));
      const lineage = types.body.find((c: { category: string }) => c.category === 'lineage');
      expect(lineage.event_types).toEqual([{ name: 'lineage.run_failed', description: expect.any(String) }]);

      const runId = randomUUID();
      await send(
        airflow(setup, {
          eventType: 'ABORT',
          eventTime: '2026-11-28T05:30:00.000Z',
          runId,
          job: 'spark.compact',
          errorMessage: 'cancelled by operator',
        }),
      );
      await t.app.get(OutboxDispatcher).drain();
      await t.app.get(JobRunner).drain();
      const [request] = await receiver.waitForCount(1);
      const body = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
      const target = await productNamed(space, 'shop.public.orders');
      const [alert] = await alertsOf(space, target);
      expect(alert).toMatchObject({ severity: 'medium', alert_type: 'anomaly' });
      expect(body).toMatchObject({
        type: 'lineage.run_failed',
        data: {
          space_id: space.id,
          job_namespace: setup.jobs,
          job_name: 'spark.compact',
          run_id: runId,
          state: 'ABORT',
          error_message: 'cancelled by operator',
          output_product_ids: [target.id],
          alert_ids: [alert.id],
        },
      });
    } finally {
      await receiver.close();
    }
  });

  it('answers 404 for a job or a product of another space, and to non-members', async () => {
    const setup = await setUp();
    const other = await setUp();
    await send(
      airflow(other, { eventType: 'START', eventTime: '2026-11-28T05:00:00.000Z', runId: randomUUID() }),
    );
    const [foreignJob] = (await jobsOf(other.space)).items;
    const foreignProduct = await productNamed(other.space, 'shop.public.orders');
    const { space } = setup;
    expectProblem(
      await t.http.get(`${API}/spaces/${space.slug}/lineage/jobs/${foreignJob.id}/runs`).set(bearer(admin)),
      404,
    );
    expectProblem(
      await t.http
        .get(`${API}/catalog/spaces/${space.slug}/products/${foreignProduct.id}/runs`)
        .set(bearer(admin)),
      404,
    );
    const outsider = await createUser(t.http);
    expectProblem(await t.http.get(`${API}/spaces/${space.slug}/lineage/jobs`).set(bearer(outsider)), 404);
    expect(await jobsOf(space)).toEqual({ items: [], total: 0 });
  });
});
