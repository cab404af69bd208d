import { RunHealthPort } from '../../src/modules/lineage-runs/run-event';
import type { AppliedRunEvent } from '../../src/modules/lineage-runs/run-event';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import {
  applyEvents,
  createApiKey,
  mapNamespaces,
  olEvent,
  postEvents,
  uniqueNamespace,
} from '../support/openlineage';
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
});
