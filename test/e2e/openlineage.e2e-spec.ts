import { gzipSync } from 'node:zlib';
import { RunHealthPort } from '../../src/modules/lineage-runs/run-event';
import type { AppliedRunEvent } from '../../src/modules/lineage-runs/run-event';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import {
  applyEvents,
  createApiKey,
  mapNamespaces,
  olEvent,
  OPENLINEAGE_URL,
  postEvents,
  uniqueNamespace,
} from '../support/openlineage';
import { fieldName, Schema, SchemaSampler } from '../support/openapi-samples';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('OpenLineage ingestion', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let space: TestSpace;
  let editorKey: { token: string };

  let applied: AppliedRunEvent[];

  const products = async (s: TestSpace = space) =>
    (await t.http.get(`${API}/catalog/spaces/${s.slug}/products?limit=200`).set(bearer(viewer))).body
      .items as { id: string; name: string; attributes: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const productNamed = async (name: string, s: TestSpace = space) => {
    const found = (await products(s)).find((p) => p.name === name);
    if (!found) throw new Error(`no product ${name}`);
    return found;
  };
  const storedCount = async (runId: string) =>
    Number(
      (
        await dbQuery<{ n: string }>(`SELECT count(*) AS n FROM openlineage_events WHERE run_id = $1`, [
          runId,
        ])
      )[0].n,
    );

  beforeAll(async () => {
    t = await startApp();
    admin = await createUser(t.http);
    editor = await createUser(t.http);
    viewer = await createUser(t.http);
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    editorKey = await createApiKey(t.http, editor);

    const port = t.app.get(RunHealthPort);
    jest.spyOn(port, 'apply').mockImplementation(async (_em, event) => {
      applied.push(event);
    });
    jest.spyOn(port, 'applyAll').mockImplementation(async (_em, events) => {
      applied.push(...events);
    });
  });
  beforeEach(() => {
    applied = [];
  });
  afterAll(() => t.close());

  describe('namespace mappings', () => {
    it('are set by a space admin and read by members', async () => {
      const namespace = uniqueNamespace('postgres://maps');
      const put = await t.http
        .put(`${API}/spaces/${space.slug}/openlineage/namespaces`)
        .set(bearer(admin))
        .send({ items: [{ namespace, create_products: true }] });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        items: [{ namespace, create_products: true, created_at: expect.any(String) }],
        total: 1,
      });
      const get = await t.http.get(`${API}/spaces/${space.slug}/openlineage/namespaces`).set(bearer(viewer));
      expect(get.status).toBe(200);
      expect(get.body.items.map((i: { namespace: string }) => i.namespace)).toEqual([namespace]);
    });

    it('refuse editors (403) and a namespace listed twice (422)', async () => {
      expectProblem(
        await t.http
          .put(`${API}/spaces/${space.slug}/openlineage/namespaces`)
          .set(bearer(editor))
          .send({ items: [] }),
        403,
      );
      const twice = await t.http
        .put(`${API}/spaces/${space.slug}/openlineage/namespaces`)
        .set(bearer(admin))
        .send({
          items: [
            { namespace: 'x', create_products: false },
            { namespace: 'x', create_products: true },
          ],
        });
      expectProblem(twice, 422);
      expect(invalidFields(twice)).toEqual(['items[1].namespace']);
    });
  });

  it('answers 201 and changes nothing for events no space maps', async () => {
    const event = olEvent('spec-run-start', {
      'my-datasource-namespace': uniqueNamespace('nobody'),
      'my-scheduler-namespace': uniqueNamespace('nobody-jobs'),
    });
    const res = await postEvents(t, editorKey, event);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ accepted: 0 });
    expect(await storedCount(event.run.runId)).toBe(0);
  });

  it('takes the specification example: products created, columns, lineage with job and column lineage', async () => {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    const datasets = uniqueNamespace('postgres://spec');
    const jobs = uniqueNamespace('scheduler');
    await mapNamespaces(t.http, admin, s, [
      { namespace: datasets, create_products: true },
      { namespace: jobs, create_products: false },
    ]);
    const event = olEvent('spec-run-start', {
      'my-datasource-namespace': datasets,
      'my-scheduler-namespace': jobs,
    });
    const res = await postEvents(t, editorKey, event);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ accepted: 1 });
    await applyEvents(t);

    const input = await productNamed('instance.schema.table', s);
    const output = await productNamed('instance.schema.output_table', s);
    expect(input.attributes.schema.columns).toEqual([
      { name: 'id', type: 'INT' },
      { name: 'amount', type: 'DECIMAL(10,2)' },
    ]);
    const graph = await t.http
      .get(`${API}/catalog/spaces/${s.slug}/products/${output.id}/lineage?direction=upstream`)
      .set(bearer(viewer));
    expect(graph.status).toBe(200);
    expect(graph.body.edges).toEqual([
      {
        upstream_id: input.id,
        downstream_id: output.id,
        job: { namespace: jobs, name: 'myjob.mytask' },
        column_lineage: [
          { downstream_column: 'id', upstream_column: 'id' },
          { downstream_column: 'total', upstream_column: 'amount' },
        ],
      },
    ]);
    expect(applied).toEqual([
      expect.objectContaining({
        spaceId: s.id,
        actorUserId: editor.id,
        runId: event.run.runId,
        eventType: 'START',
        eventTime: new Date('2020-12-28T19:52:00.001+10:00'),
        job: { namespace: jobs, name: 'myjob.mytask' },
        inputs: [{ productId: input.id, namespace: datasets, name: 'instance.schema.table' }],
        outputs: [{ productId: output.id, namespace: datasets, name: 'instance.schema.output_table' }],
        parent: null,
        errorMessage: null,
        assertions: [],
      }),
    ]);
  });

  /** A space of its own with editor and viewer, mapping a fresh dataset namespace (and job namespace). */
  async function mappedSpace(createProducts = true) {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    const datasets = uniqueNamespace('postgres://db');
    const jobs = uniqueNamespace('jobs');
    await mapNamespaces(t.http, admin, s, [
      { namespace: datasets, create_products: createProducts },
      { namespace: jobs, create_products: false },
    ]);
    return { s, datasets, jobs };
  }

  it('refuses (403) a request touching a space the key’s user may not edit, and stores none of it', async () => {
    const { datasets, jobs } = await mappedSpace();
    const viewerKey = await createApiKey(t.http, viewer);
    const event = olEvent('spec-run-start', {
      'my-datasource-namespace': datasets,
      'my-scheduler-namespace': jobs,
    });
    expectProblem(await postEvents(t, viewerKey, event), 403, /may not edit/);
    // A stranger to the space too; and one forbidden event refuses the whole batch.
    const stranger = await createApiKey(t.http, await createUser(t.http));
    const mine = await mappedSpace();
    const allowed = olEvent('spec-run-start', {
      'my-datasource-namespace': mine.datasets,
      'my-scheduler-namespace': mine.jobs,
    });
    expectProblem(await postEvents(t, stranger, [allowed]), 403);
    expectProblem(await postEvents(t, viewerKey, [allowed, event]), 403);
    expect(await storedCount(event.run.runId)).toBe(0);
    expect(await storedCount(allowed.run.runId)).toBe(0);
  });

  it('answers 422 naming the invalid fields, with the index in a batch, and stores nothing', async () => {
    const { datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    const single = olEvent('spec-run-start', names);
    delete single.run.runId;
    const res = await postEvents(t, editorKey, single);
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['run.runId']);
    expect(res.body.errors[0].message).toBe('run.runId is required.');

    const good = olEvent('spec-run-start', names);
    const badRun = olEvent('spec-run-start', names, { eventType: 'DONE', eventTime: 'yesterday' });
    badRun.run.runId = 'not-a-uuid';
    const badFacets = olEvent('dbt-model-complete', { 'postgres://analytics-db:5432': datasets });
    delete badFacets.outputs[0].facets.schema.fields[1].name;
    badFacets.inputs[0].inputFacets.dataQualityAssertions.assertions[0].success = 'yes';
    badFacets.run.facets.parent.run.runId = 42;
    delete badFacets.producer;
    const batch = await postEvents(t, editorKey, [good, badRun, badFacets]);
    expectProblem(batch, 422);
    expect(invalidFields(batch).sort()).toEqual(
      [
        '[1].eventTime',
        '[1].eventType',
        '[1].run.runId',
        '[2].producer',
        '[2].run.facets.parent.run.runId',
        '[2].inputs.0.inputFacets.dataQualityAssertions.assertions.0.success',
        '[2].outputs.0.facets.schema.fields.1.name',
      ].sort(),
    );
    expect(await storedCount(good.run.runId)).toBe(0);
  });

  it('answers 422 naming each required member of each event kind when it is left out (the documented schemas)', async () => {
    const document = (await t.http.get(`${API}/openapi.json`)).body as {
      components: { schemas: Record<string, Schema> };
    };
    const sampler = new SchemaSampler(document.components.schemas, {});
    const walked: string[] = [];
    for (const kind of ['OpenLineageRunEvent', 'OpenLineageJobEvent', 'OpenLineageDatasetEvent']) {
      const schema = { $ref: `#/components/schemas/${kind}` };
      expect((await postEvents(t, editorKey, sampler.sample(schema))).status).toBe(201);
      for (const path of sampler.requiredPaths(schema)) {
        const res = await postEvents(t, editorKey, sampler.without(schema, path));
        const field = fieldName(path);
        walked.push(`${kind} ${field}`);
        expect([res.status, invalidFields(res), res.body.errors?.[0]?.message]).toEqual([
          422,
          [field],
          `${field} is required.`,
        ]);
      }
    }
    expect(walked).toEqual(
      expect.arrayContaining([
        'OpenLineageRunEvent run.runId',
        'OpenLineageRunEvent job.namespace',
        'OpenLineageJobEvent job.name',
        'OpenLineageDatasetEvent dataset.namespace',
      ]),
    );
  });

  it('reads bodies up to 10 MB (413 beyond) and batches up to 1,000 events (422 beyond)', async () => {
    const { datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    const big = olEvent('spec-run-start', names);
    // About 2 MB: past express's default 100 kB, well within the route's limit.
    big.run.facets = { padding: { text: 'x'.repeat(2_000_000) } };
    expect((await postEvents(t, editorKey, big)).status).toBe(201);
    big.run.facets.padding.text = 'x'.repeat(11_000_000);
    expectProblem(await postEvents(t, editorKey, big), 413);
    const tooMany = Array.from({ length: 1_001 }, () => olEvent('spec-run-start', names));
    const res = await postEvents(t, editorKey, tooMany);
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['body']);
    // The stored event is applied here, not during the next test.
    await applyEvents(t);
  });

  it('keeps unknown facets and takes a batch; a run event sent twice is stored and applied once', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    const start = olEvent('spec-run-start', names);
    start.run.facets = {
      nominalTime: { nominalStartTime: '2020-12-28T09:00:00Z' },
      custom_facet: { any: [1, 2] },
    };
    const complete = { ...start, eventType: 'COMPLETE', eventTime: '2020-12-28T19:59:00.001+10:00' };
    const first = await postEvents(t, editorKey, [start, complete]);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ accepted: 2 });
    // Sent again, gzipped as the transport's `compression: gzip` sends it (raw bytes: plain fetch, not the agent).
    const again = await fetch(`${t.baseUrl}${OPENLINEAGE_URL}`, {
      method: 'POST',
      headers: { ...bearer(editorKey), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(start)),
    });
    expect([again.status, await again.json()]).toEqual([201, { accepted: 1 }]);
    expect(await storedCount(start.run.runId)).toBe(2);
    await applyEvents(t);
    expect(applied.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    const [raw] = await dbQuery<{ payload: { run: { facets: Record<string, unknown> } } }>(
      `SELECT payload FROM openlineage_events WHERE run_id = $1 AND event_type = 'START'`,
      [start.run.runId],
    );
    expect(raw.payload.run.facets.custom_facet).toEqual({ any: [1, 2] });
    const input = await productNamed('instance.schema.table', s);
    const graph = await t.http
      .get(`${API}/catalog/spaces/${s.slug}/products/${input.id}/lineage?direction=downstream`)
      .set(bearer(viewer));
    expect(graph.body.edges).toHaveLength(1);
  });

  it('applies events in event-time order and converges when they arrive out of order', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    const newer = olEvent('spec-run-start', names, {
      eventType: 'COMPLETE',
      eventTime: '2024-01-02T00:00:00Z',
    });
    newer.outputs[0].facets.schema.fields.push({ name: 'currency', type: 'CHAR(3)' });
    const older = olEvent('spec-run-start', names, { eventTime: '2024-01-01T00:00:00Z' });
    older.run.runId = newer.run.runId;
    // The newer event is applied first; the older one, arriving late, must not undo its columns.
    await postEvents(t, editorKey, newer).expect(201);
    await applyEvents(t);
    await postEvents(t, editorKey, older).expect(201);
    await applyEvents(t);
    const output = await productNamed('instance.schema.output_table', s);
    expect(output.attributes.schema.columns.map((c: { name: string }) => c.name)).toEqual([
      'id',
      'total',
      'currency',
    ]);
    // Within one batch, event-time order.
    applied = [];
    const late = olEvent('spec-run-start', names, {
      eventType: 'COMPLETE',
      eventTime: '2024-02-01T00:10:00Z',
    });
    const early = olEvent('spec-run-start', names, { eventTime: '2024-02-01T00:00:00Z' });
    early.run.runId = late.run.runId;
    await postEvents(t, editorKey, [late, early]).expect(201);
    await applyEvents(t);
    expect(applied.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
  });

  it('records a change of columns under the product and notifies its owners', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    await postEvents(
      t,
      editorKey,
      olEvent('spec-run-start', names, { eventTime: '2024-03-01T00:00:00Z' }),
    ).expect(201);
    await applyEvents(t);
    const output = await productNamed('instance.schema.output_table', s);
    await t.http
      .patch(`${API}/catalog/spaces/${s.slug}/products/${output.id}`)
      .set(bearer(editor))
      .send({ owner_ids: [viewer.id] })
      .expect(200);
    const changed = olEvent('spec-run-start', names, { eventTime: '2024-03-02T00:00:00Z' });
    changed.outputs[0].facets.schema.fields = [
      { name: 'id', type: 'BIGINT' },
      { name: 'currency', type: 'CHAR(3)' },
    ];
    await postEvents(t, editorKey, changed).expect(201);
    await applyEvents(t);
    const res = await t.http
      .get(`${API}/catalog/spaces/${s.slug}/products/${output.id}/schema-changes`)
      .set(bearer(viewer));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        {
          id: expect.any(String),
          product_id: output.id,
          changed_at: '2024-03-02T00:00:00.000Z',
          added: [{ name: 'currency', type: 'CHAR(3)' }],
          removed: [{ name: 'total', type: 'DECIMAL(12,2)' }],
          changed: [{ name: 'id', type: 'BIGINT', previous_type: 'INT' }],
          run_id: changed.run.runId,
          job: { namespace: jobs, name: 'myjob.mytask' },
        },
      ],
      total: 1,
    });
    await t.app.get(OutboxDispatcher).drain();
    const notes = await t.http.get(`${API}/notifications?type=schema_changed`).set(bearer(viewer));
    expect(notes.status).toBe(200);
    expect(notes.body.items).toEqual([
      expect.objectContaining({
        type: 'schema_changed',
        title: 'Columns of instance.schema.output_table changed',
        data: { product_id: output.id, space_id: s.id, change_id: res.body.items[0].id },
      }),
    ]);
  });

  it('skips and records an edge that would close a cycle; the rest of the run counts', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    await postEvents(t, editorKey, olEvent('spec-run-start', names)).expect(201);
    const backwards = olEvent('spec-run-start', names);
    [backwards.inputs, backwards.outputs] = [backwards.outputs, backwards.inputs];
    for (const dataset of [...backwards.inputs, ...backwards.outputs]) delete dataset.facets.columnLineage;
    backwards.outputs.push({ namespace: datasets, name: 'instance.schema.audit' });
    await postEvents(t, editorKey, backwards).expect(201);
    await applyEvents(t);
    const [row] = await dbQuery<{ outcome: { skipped_edges: { reason: string }[] } }>(
      `SELECT outcome FROM openlineage_events WHERE run_id = $1`,
      [backwards.run.runId],
    );
    expect(row.outcome.skipped_edges).toEqual([expect.objectContaining({ space_id: s.id, reason: 'cycle' })]);
    const audit = await productNamed('instance.schema.audit', s);
    const graph = await t.http
      .get(`${API}/catalog/spaces/${s.slug}/products/${audit.id}/lineage?direction=upstream&depth=1`)
      .set(bearer(viewer));
    expect(graph.body.edges).toHaveLength(1);
  });

  it('skips datasets without a product when the mapping creates none', async () => {
    const { s, datasets, jobs } = await mappedSpace(false);
    const event = olEvent('spec-run-start', {
      'my-datasource-namespace': datasets,
      'my-scheduler-namespace': jobs,
    });
    await postEvents(t, editorKey, event).expect(201);
    await applyEvents(t);
    expect(await products(s)).toEqual([]);
    expect(applied).toEqual([expect.objectContaining({ spaceId: s.id, inputs: [], outputs: [] })]);
  });

  it('hands Airflow failures (error message, parent) and dbt assertions to run health', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const airflow = olEvent('airflow-task-fail', {
      'postgres://warehouse.internal:5432': datasets,
      'airflow-prod': jobs,
    });
    const dbt = olEvent('dbt-model-complete', {
      'postgres://analytics-db:5432': datasets,
      'dbt-analytics': jobs,
    });
    await postEvents(t, editorKey, [dbt, airflow]).expect(201);
    await applyEvents(t);
    const customers = await productNamed('jaffle_shop.staging.stg_customers', s);
    expect(applied).toEqual([
      expect.objectContaining({
        eventType: 'COMPLETE',
        job: { namespace: jobs, name: 'jaffle_shop.analytics.customers' },
        parent: {
          runId: 'f99310b4-3c3c-1a1a-2b2b-c1b95c24ff11',
          job: { namespace: jobs, name: 'dbt-run-jaffle_shop' },
        },
        assertions: [
          {
            productId: customers.id,
            assertions: [
              { assertion: 'not_null', success: true, column: 'customer_id' },
              { assertion: 'unique', success: false, column: 'customer_id' },
            ],
          },
        ],
      }),
      expect.objectContaining({
        eventType: 'FAIL',
        runId: airflow.run.runId,
        errorMessage: {
          message: 'relation "staging.orders" does not exist',
          programmingLanguage: 'python',
          stackTrace: expect.stringContaining('UndefinedTable'),
        },
        parent: {
          runId: '018f7600-0000-7000-8000-000000000001',
          job: { namespace: jobs, name: 'orders_daily' },
        },
        outputs: [expect.objectContaining({ name: 'shop.public.orders' })],
      }),
    ]);
  });

  it('takes JobEvents (lineage, no run) and DatasetEvents (columns)', async () => {
    const { s, datasets, jobs } = await mappedSpace();
    const names = { 'my-datasource-namespace': datasets, 'my-scheduler-namespace': jobs };
    const { run: _run, eventType: _type, ...jobEvent } = olEvent('spec-run-start', names);
    jobEvent.schemaURL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent';
    const datasetEvent = {
      eventTime: '2024-04-01T00:00:00Z',
      producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.13.1/client/python',
      schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent',
      dataset: {
        namespace: datasets,
        name: 'instance.schema.reference',
        facets: { schema: { fields: [{ name: 'code', type: 'TEXT' }] } },
      },
    };
    expect((await postEvents(t, editorKey, [jobEvent, datasetEvent]).expect(201)).body).toEqual({
      accepted: 2,
    });
    await applyEvents(t);
    expect(applied).toEqual([]);
    const reference = await productNamed('instance.schema.reference', s);
    expect(reference.attributes.schema.columns).toEqual([{ name: 'code', type: 'TEXT' }]);
    const output = await productNamed('instance.schema.output_table', s);
    const graph = await t.http
      .get(`${API}/catalog/spaces/${s.slug}/products/${output.id}/lineage?direction=upstream`)
      .set(bearer(viewer));
    expect(graph.body.edges).toEqual([
      expect.objectContaining({ job: { namespace: jobs, name: 'myjob.mytask' } }),
    ]);
  });

  it('prunes applied raw events past the retention period', async () => {
    const { datasets, jobs } = await mappedSpace();
    const event = olEvent('spec-run-start', {
      'my-datasource-namespace': datasets,
      'my-scheduler-namespace': jobs,
    });
    await postEvents(t, editorKey, event).expect(201);
    await applyEvents(t);
    await dbQuery(
      `UPDATE openlineage_events SET received_at = now() - interval '31 days' WHERE run_id = $1`,
      [event.run.runId],
    );
    await t.app.get(JobRunner).enqueue(null, 'openlineage.prune-events', {});
    await t.app.get(JobRunner).drain();
    expect(await storedCount(event.run.runId)).toBe(0);
  });
});
