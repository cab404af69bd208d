import { randomUUID } from 'node:crypto';
import { TransactionRunner } from '../../src/database/transaction.runner';
import { AppliedRunEvent, RunHealthPort, RunState } from '../../src/modules/lineage-runs/run-event';
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
import { expectProblem } from '../support/problem';
import { startWebhookReceiver } from '../support/webhook-receiver';

const API = '/api/v1.0';

interface Product {
  id: string;
  name: string;
}

interface RunEventInput {
  eventType: RunState;
  eventTime: string;
  runId: string;
  job: string;
  inputs?: Product[];
  outputs?: Product[];
  errorMessage?: string;
  assertions?: { product: Product; assertion: string; success: boolean; column?: string }[];
}

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

describe('lineage runs (OpenLineage run health)', () => {
  let t: TestApp;
  let admin: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    admin = await createUser(t.http);
    viewer = await createUser(t.http);
  });
  afterAll(() => t.close());

  /**
   * Applies one run event to the space as ingestion does after resolving its
   * datasets (RunHealthPort in one transaction).
   */
  async function emit(space: TestSpace, input: RunEventInput): Promise<void> {
    const dataset = (p: Product) => ({ productId: p.id, namespace: 'postgres://db:5432', name: p.name });
    const event: AppliedRunEvent = {
      spaceId: space.id,
      actorUserId: admin.id,
      runId: input.runId,
      eventType: input.eventType,
      eventTime: new Date(input.eventTime),
      job: { namespace: 'airflow://etl', name: input.job },
      parent: null,
      errorMessage: input.errorMessage
        ? { message: input.errorMessage, programmingLanguage: 'python', stackTrace: null }
        : null,
      inputs: (input.inputs ?? []).map(dataset),
      outputs: (input.outputs ?? []).map(dataset),
      assertions: (input.assertions ?? []).map((a) => ({
        productId: a.product.id,
        assertions: [{ assertion: a.assertion, success: a.success, column: a.column ?? null }],
      })),
    };
    await t.app.get(TransactionRunner).run((em) => t.app.get(RunHealthPort).apply(em, event));
  }

  async function setUp() {
    const space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, viewer, 'viewer');
    const source = await createProduct(t.http, admin, space, {
      name: `orders_raw ${randomUUID().slice(0, 6)}`,
    });
    const target = await createProduct(t.http, admin, space, { name: `orders ${randomUUID().slice(0, 6)}` });
    return { space, source, target };
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

  it('keeps a failed run with its error, and raises an alert and an incident on its output', async () => {
    const { space, source, target } = await setUp();
    const runId = randomUUID();
    await emit(space, {
      eventType: 'START',
      eventTime: '2026-11-28T04:00:00.000Z',
      runId,
      job: 'load_orders',
      inputs: [source],
      outputs: [target],
    });
    await emit(space, {
      eventType: 'FAIL',
      eventTime: '2026-11-28T04:02:30.000Z',
      runId,
      job: 'load_orders',
      inputs: [source],
      outputs: [target],
      errorMessage: 'relation "orders_raw" does not exist',
    });

    const jobs = await jobsOf(space);
    expect(jobs.total).toBe(1);
    const [job] = jobs.items;
    expect(job).toMatchObject({
      namespace: 'airflow://etl',
      name: 'load_orders',
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
          error_message: 'relation "orders_raw" does not exist',
          job: { id: job.id, namespace: 'airflow://etl', name: 'load_orders' },
          parent: null,
          input_product_ids: [source.id],
          output_product_ids: [target.id],
          first_event_time: '2026-11-28T04:00:00.000Z',
          last_event_time: '2026-11-28T04:02:30.000Z',
        },
      ],
    });

    const [alert] = await alertsOf(space, target);
    expect(alert).toMatchObject({
      alert_type: 'anomaly',
      severity: 'high',
      status: 'open',
      metadata: {
        source: 'openlineage',
        job_namespace: 'airflow://etl',
        job_name: 'load_orders',
        run_id: runId,
        state: 'FAIL',
        error_message: 'relation "orders_raw" does not exist',
      },
    });
    expect(alert.message).toContain('relation "orders_raw" does not exist');
    expect(await alertsOf(space, source)).toEqual([]);
    const incident = await t.http
      .get(`${API}/spaces/${space.slug}/incidents/${alert.incident_id}`)
      .set(bearer(viewer));
    expect(incident.status).toBe(200);
    expect(incident.body).toMatchObject({ status: 'open', severity: 'high', alert_count: 1 });

    for (const product of [source, target]) {
      const res = await t.http
        .get(`${API}/catalog/spaces/${space.slug}/products/${product.id}/runs`)
        .set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(1);
      expect(res.body.items[0]).toMatchObject({ run_id: runId, state: 'FAIL' });
    }
  });

  it('raises one alert for a failure applied twice, and resolves it when a later run of the job completes', async () => {
    const { space, source, target } = await setUp();
    const failed = randomUUID();
    const fail: RunEventInput = {
      eventType: 'FAIL',
      eventTime: '2026-11-28T03:00:00.000Z',
      runId: failed,
      job: 'nightly',
      inputs: [source],
      outputs: [target],
      errorMessage: 'out of memory',
    };
    await emit(space, fail);
    await emit(space, fail);
    let alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].status).toBe('open');

    const later = randomUUID();
    await emit(space, {
      eventType: 'START',
      eventTime: '2026-11-28T04:00:00.000Z',
      runId: later,
      job: 'nightly',
      outputs: [target],
    });
    expect((await alertsOf(space, target))[0].status).toBe('open');
    await emit(space, {
      eventType: 'COMPLETE',
      eventTime: '2026-11-28T04:10:00.000Z',
      runId: later,
      job: 'nightly',
      outputs: [target],
    });
    alerts = await alertsOf(space, target);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });

    const [job] = (await jobsOf(space)).items;
    expect(job.latest_run).toMatchObject({ run_id: later, state: 'COMPLETE', duration_ms: 600_000 });
    const runs = await runsOf(space, job.id);
    expect(runs.items.map((r) => [r.run_id, r.state])).toEqual([
      [later, 'COMPLETE'],
      [failed, 'FAIL'],
    ]);
  });

  it('converges when the events of a run arrive out of order', async () => {
    const { space, source, target } = await setUp();
    const runId = randomUUID();
    await emit(space, {
      eventType: 'COMPLETE',
      eventTime: '2026-11-28T02:05:00.000Z',
      runId,
      job: 'dbt.orders',
      outputs: [target],
    });
    await emit(space, {
      eventType: 'START',
      eventTime: '2026-11-28T02:00:00.000Z',
      runId,
      job: 'dbt.orders',
      inputs: [source],
    });
    await emit(space, {
      eventType: 'RUNNING',
      eventTime: '2026-11-28T02:01:00.000Z',
      runId,
      job: 'dbt.orders',
    });
    const [job] = (await jobsOf(space)).items;
    const [run] = (await runsOf(space, job.id)).items;
    expect(run).toMatchObject({
      state: 'COMPLETE',
      started_at: '2026-11-28T02:00:00.000Z',
      ended_at: '2026-11-28T02:05:00.000Z',
      duration_ms: 300_000,
      error_message: null,
      input_product_ids: [source.id],
      output_product_ids: [target.id],
      first_event_time: '2026-11-28T02:00:00.000Z',
    });

    // A failure of an earlier run arriving after the job completed raises nothing: the job is past it.
    await emit(space, {
      eventType: 'FAIL',
      eventTime: '2026-11-28T01:00:00.000Z',
      runId: randomUUID(),
      job: 'dbt.orders',
      outputs: [target],
      errorMessage: 'late news',
    });
    expect(await alertsOf(space, target)).toEqual([]);
    expect((await jobsOf(space)).items[0].latest_run).toMatchObject({ run_id: runId, state: 'COMPLETE' });
  });

  it('turns dataQualityAssertions into runs of a pushed check per assertion, a failed one opening an alert', async () => {
    const { space, source, target } = await setUp();
    const runId = randomUUID();
    await emit(space, {
      eventType: 'COMPLETE',
      eventTime: '2026-11-28T05:00:00.000Z',
      runId,
      job: 'ge.validate_orders',
      inputs: [source],
      assertions: [
        { product: source, assertion: 'not_null', column: 'order_id', success: true },
        { product: source, assertion: 'row_count_between', success: false },
      ],
    });
    await emit(space, {
      eventType: 'COMPLETE',
      eventTime: '2026-11-28T06:00:00.000Z',
      runId: randomUUID(),
      job: 'ge.validate_orders',
      inputs: [source],
      assertions: [{ product: source, assertion: 'not_null', column: 'order_id', success: false }],
    });

    const checks = await t.http
      .get(`${API}/spaces/${space.slug}/quality/checks`)
      .query({ product_id: source.id })
      .set(bearer(viewer));
    expect(checks.status).toBe(200);
    const byName = new Map<string, CheckItem>(checks.body.items.map((c: CheckItem) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual(['not_null (order_id)', 'row_count_between']);
    expect(byName.get('not_null (order_id)')).toMatchObject({ check_type: 'custom', last_status: 'failed' });
    expect(byName.get('row_count_between')).toMatchObject({ check_type: 'custom', last_status: 'failed' });

    const runs = await t.http
      .get(`${API}/spaces/${space.slug}/quality/checks/${byName.get('not_null (order_id)')!.id}/runs`)
      .set(bearer(viewer));
    expect(runs.status).toBe(200);
    expect(runs.body.items.map((r: { status: string }) => r.status).sort()).toEqual(['failed', 'passed']);

    const alerts = await alertsOf(space, source);
    expect(alerts.map((a) => a.alert_type)).toEqual(['quality_check_failed', 'quality_check_failed']);
    expect(await alertsOf(space, target)).toEqual([]);
  });

  it('delivers lineage.run_failed to a subscribed webhook', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { space, target } = await setUp();
      const hook = await t.http
        .post(`${API}/spaces/${space.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url: receiver.url, event_types: ['lineage.run_failed'] });
      expect(hook.status).toBe(201);
      const types = await t.http.get(`${API}/spaces/${space.slug}/webhooks/event-types`).set(bearer(admin));
      const lineage = types.body.find((c: { category: string }) => c.category === 'lineage');
      expect(lineage.event_types).toEqual([{ name: 'lineage.run_failed', description: expect.any(String) }]);

      const runId = randomUUID();
      await emit(space, {
        eventType: 'ABORT',
        eventTime: '2026-11-28T05:30:00.000Z',
        runId,
        job: 'spark.compact',
        outputs: [target],
        errorMessage: 'cancelled by operator',
      });
      await t.app.get(OutboxDispatcher).drain();
      await t.app.get(JobRunner).drain();
      const [request] = await receiver.waitForCount(1);
      const body = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
      const [alert] = await alertsOf(space, target);
      expect(alert).toMatchObject({ severity: 'medium', alert_type: 'anomaly' });
      expect(body).toMatchObject({
        type: 'lineage.run_failed',
        data: {
          space_id: space.id,
          job_namespace: 'airflow://etl',
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
    const { space, target } = await setUp();
    const other = await setUp();
    await emit(other.space, {
      eventType: 'START',
      eventTime: '2026-11-28T05:00:00.000Z',
      runId: randomUUID(),
      job: 'elsewhere',
      outputs: [other.target],
    });
    const [foreignJob] = (await jobsOf(other.space)).items;
    expectProblem(
      await t.http.get(`${API}/spaces/${space.slug}/lineage/jobs/${foreignJob.id}/runs`).set(bearer(admin)),
      404,
    );
    expectProblem(
      await t.http
        .get(`${API}/catalog/spaces/${space.slug}/products/${other.target.id}/runs`)
        .set(bearer(admin)),
      404,
    );
    const outsider = await createUser(t.http);
    expectProblem(await t.http.get(`${API}/spaces/${space.slug}/lineage/jobs`).set(bearer(outsider)), 404);
    const empty = await t.http
      .get(`${API}/catalog/spaces/${space.slug}/products/${target.id}/runs`)
      .set(bearer(viewer));
    expect(empty.body).toEqual({ items: [], total: 0 });
  });
});
