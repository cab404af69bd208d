import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
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

describe('risk register', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp();
    [admin, editor, viewer, outsider] = await Promise.all([
      createUser(t.http, { first_name: 'Ada' }),
      createUser(t.http, { first_name: 'Ed' }),
      createUser(t.http, { first_name: 'Vi' }),
      createUser(t.http, { first_name: 'Out' }),
    ]);
    space = await newSpace();
  });
  afterAll(() => t.close());

  async function newSpace(): Promise<TestSpace> {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    return s;
  }

  const base = (s: TestSpace) => `${API}/catalog/spaces/${s.slug}/risk-register`;

  async function createRisk(s: TestSpace, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(base(s))
      .set(bearer(editor))
      .send({
        title: 'Stale data',
        category: 'data_quality',
        likelihood: 'possible',
        impact: 'moderate',
        ...fields,
      });
    expect(res.status).toBe(201);
    return res.body as Record<string, unknown> & { id: string };
  }

  it('creates a scored, tiered, identified risk and reads it back', async () => {
    const res = await t.http.post(base(space)).set(bearer(editor)).send({
      title: 'PII leak',
      description: 'Exposure',
      category: 'privacy',
      likelihood: 'unlikely',
      impact: 'severe',
      mitigation_plan: 'Mask it',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      space_id: space.id,
      title: 'PII leak',
      description: 'Exposure',
      category: 'privacy',
      likelihood: 'unlikely',
      impact: 'severe',
      score: 10,
      tier: 'high',
      status: 'identified',
      mitigation_plan: 'Mask it',
      owner_id: null,
      review_date: null,
      product_ids: [],
      created_by: editor.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await t.http.get(`${base(space)}/${res.body.id}`).set(bearer(viewer));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it.each([
    ['rare', 'negligible', 1, 'low'],
    ['unlikely', 'minor', 4, 'low'],
    ['possible', 'minor', 6, 'medium'],
    ['possible', 'moderate', 9, 'medium'],
    ['likely', 'major', 16, 'high'],
    ['likely', 'severe', 20, 'critical'],
    ['almost_certain', 'severe', 25, 'critical'],
  ])('scores %s x %s as %i (%s)', async (likelihood, impact, score, tier) => {
    const risk = await createRisk(space, { likelihood, impact });
    expect(risk).toEqual(expect.objectContaining({ score, tier }));
  });

  it('rejects unknown enum values, missing and unknown fields with 422', async () => {
    for (const [field, value] of [
      ['category', 'weather'],
      ['likelihood', 'often'],
      ['impact', 'huge'],
    ]) {
      const res = await t.http
        .post(base(space))
        .set(bearer(editor))
        .send({ title: 'x', category: 'other', likelihood: 'rare', impact: 'minor', [field]: value });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual([field]);
    }
    const missing = await t.http.post(base(space)).set(bearer(editor)).send({ title: 'x' });
    expectProblem(missing, 422);
    expect(invalidFields(missing).sort()).toEqual(['category', 'impact', 'likelihood']);
    const unknown = await t.http
      .post(base(space))
      .set(bearer(editor))
      .send({ title: 'x', category: 'other', likelihood: 'rare', impact: 'minor', status: 'closed' });
    expectProblem(unknown, 422);
    const badStatus = await t.http
      .put(`${base(space)}/${(await createRisk(space)).id}`)
      .set(bearer(editor))
      .send({ status: 'done' });
    expectProblem(badStatus, 422);
  });

  it('updates partially, recomputes score and tier, moves status and sets owner and review date', async () => {
    const risk = await createRisk(space);
    const res = await t.http
      .put(`${base(space)}/${risk.id}`)
      .set(bearer(editor))
      .send({
        impact: 'severe',
        likelihood: 'almost_certain',
        status: 'mitigating',
        owner_id: viewer.id,
        review_date: '2031-02-03',
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        title: 'Stale data',
        category: 'data_quality',
        score: 25,
        tier: 'critical',
        status: 'mitigating',
        owner_id: viewer.id,
        review_date: '2031-02-03',
      }),
    );
    for (const status of ['assessed', 'accepted', 'closed', 'identified']) {
      const moved = await t.http
        .put(`${base(space)}/${risk.id}`)
        .set(bearer(editor))
        .send({ status });
      expect(moved.body.status).toBe(status);
    }
    const cleared = await t.http
      .put(`${base(space)}/${risk.id}`)
      .set(bearer(editor))
      .send({ owner_id: null, review_date: null });
    expect(cleared.body).toEqual(expect.objectContaining({ owner_id: null, review_date: null, score: 25 }));
    const stranger = await t.http
      .put(`${base(space)}/${risk.id}`)
      .set(bearer(editor))
      .send({ owner_id: outsider.id });
    expectProblem(stranger, 422);
    expect(invalidFields(stranger)).toEqual(['owner_id']);
    const badDate = await t.http
      .put(`${base(space)}/${risk.id}`)
      .set(bearer(editor))
      .send({ review_date: '2031-13-40' });
    expectProblem(badDate, 422);
  });

  it('lists with filters, limit and offset', async () => {
    const s = await newSpace();
    const product = await createProduct(t.http, editor, s, { name: 'orders' });
    const low = await createRisk(s, { category: 'security', likelihood: 'rare', impact: 'minor' });
    const high = await createRisk(s, { category: 'privacy', likelihood: 'likely', impact: 'major' });
    const closed = await createRisk(s, { category: 'privacy', likelihood: 'possible', impact: 'moderate' });
    await t.http
      .put(`${base(s)}/${closed.id}`)
      .set(bearer(editor))
      .send({ status: 'closed' })
      .expect(200);
    await t.http
      .post(`${base(s)}/${high.id}/link-products`)
      .set(bearer(editor))
      .send({ product_ids: [product.id] })
      .expect(200);

    const ids = async (query: string) => {
      const res = await t.http.get(`${base(s)}?${query}`).set(bearer(viewer));
      expect(res.status).toBe(200);
      return { ids: (res.body.items as { id: string }[]).map((r) => r.id), total: res.body.total as number };
    };
    expect(await ids('')).toEqual({ ids: [closed.id, high.id, low.id], total: 3 });
    expect(await ids('category=privacy')).toEqual({ ids: [closed.id, high.id], total: 2 });
    expect(await ids('status=closed')).toEqual({ ids: [closed.id], total: 1 });
    expect(await ids('tier=low')).toEqual({ ids: [low.id], total: 1 });
    expect(await ids('tier=high&category=privacy')).toEqual({ ids: [high.id], total: 1 });
    expect(await ids(`product_id=${product.id}`)).toEqual({ ids: [high.id], total: 1 });
    expect(await ids('limit=1&offset=1')).toEqual({ ids: [high.id], total: 3 });
    expect(await ids('limit=100')).toEqual({ ids: [closed.id, high.id, low.id], total: 3 });
    for (const bad of [
      'limit=101',
      'limit=0',
      'offset=-1',
      'tier=extreme',
      'status=open',
      'category=x',
      'product_id=nope',
    ]) {
      expectProblem(await t.http.get(`${base(s)}?${bad}`).set(bearer(viewer)), 422);
    }
  });

  it('links products of the same space only and unlinks them', async () => {
    const s = await newSpace();
    const other = await newSpace();
    const a = await createProduct(t.http, editor, s, { name: 'a' });
    const b = await createProduct(t.http, editor, s, { name: 'b' });
    const foreign = await createProduct(t.http, editor, other, { name: 'foreign' });
    const risk = await createRisk(s);
    const link = (ids: string[]) =>
      t.http
        .post(`${base(s)}/${risk.id}/link-products`)
        .set(bearer(editor))
        .send({ product_ids: ids });

    const linked = await link([a.id, b.id, a.id]);
    expect(linked.status).toBe(200);
    expect(linked.body.product_ids).toEqual([a.id, b.id].sort());
    expect((await link([a.id])).body.product_ids).toHaveLength(2);

    const wrong = await link([foreign.id]);
    expectProblem(wrong, 422, new RegExp(foreign.id));
    expect(invalidFields(wrong)).toEqual(['product_ids']);
    expectProblem(await link(['00000000-0000-4000-8000-000000000000']), 422);
    expectProblem(await link([]), 422);
    expectProblem(await link(['not-a-uuid']), 422);
    expectProblem(
      await t.http
        .post(`${base(s)}/00000000-0000-4000-8000-000000000000/link-products`)
        .set(bearer(editor))
        .send({ product_ids: [a.id] }),
      404,
    );

    await t.http
      .delete(`${base(s)}/${risk.id}/products/${a.id}`)
      .set(bearer(editor))
      .expect(204);
    expect((await t.http.get(`${base(s)}/${risk.id}`).set(bearer(viewer))).body.product_ids).toEqual([b.id]);
    expectProblem(await t.http.delete(`${base(s)}/${risk.id}/products/${a.id}`).set(bearer(editor)), 404);
    // Deleting a product removes its links.
    await t.http.delete(`${API}/catalog/spaces/${s.slug}/products/${b.id}`).set(bearer(editor)).expect(204);
    expect((await t.http.get(`${base(s)}/${risk.id}`).set(bearer(viewer))).body.product_ids).toEqual([]);
  });

  it('answers a heat map of all 25 cells with risk ids', async () => {
    const s = await newSpace();
    const one = await createRisk(s, { likelihood: 'likely', impact: 'major' });
    const two = await createRisk(s, { likelihood: 'likely', impact: 'major' });
    const three = await createRisk(s, { likelihood: 'rare', impact: 'severe' });
    const res = await t.http.get(`${base(s)}/heat-map`).set(bearer(viewer));
    expect(res.status).toBe(200);
    const cells = res.body.cells as {
      likelihood: string;
      impact: string;
      count: number;
      risk_ids: string[];
    }[];
    expect(cells).toHaveLength(25);
    expect(new Set(cells.map((c) => `${c.likelihood}/${c.impact}`)).size).toBe(25);
    expect(cells[0]).toEqual({ likelihood: 'rare', impact: 'negligible', count: 0, risk_ids: [] });
    const cell = cells.find((c) => c.likelihood === 'likely' && c.impact === 'major')!;
    expect(cell.count).toBe(2);
    expect(cell.risk_ids.sort()).toEqual([one.id, two.id].sort());
    expect(cells.find((c) => c.likelihood === 'rare' && c.impact === 'severe')!.risk_ids).toEqual([three.id]);
    expect(cells.reduce((n, c) => n + c.count, 0)).toBe(3);
  });

  it('caps the ids of each heat-map cell and pages through one cell', async () => {
    const s = await newSpace();
    const created = await Promise.all(
      Array.from({ length: 12 }, () => createRisk(s, { likelihood: 'possible', impact: 'minor' })),
    );
    const other = await createRisk(s, { likelihood: 'almost_certain', impact: 'severe' });
    const ids = created.map((risk) => risk.id).sort();
    const cellOf = (body: {
      cells: { likelihood: string; impact: string; count: number; risk_ids: string[] }[];
    }) => body.cells.find((c) => c.likelihood === 'possible' && c.impact === 'minor')!;

    // The whole map: every cell counted, at most 10 ids each, in id order.
    const map = await t.http.get(`${base(s)}/heat-map`).set(bearer(viewer));
    expect(map.status).toBe(200);
    expect(map.headers['content-type']).toMatch(/^application\/json/);
    expect(map.body.cells).toHaveLength(25);
    expect(cellOf(map.body)).toEqual({
      likelihood: 'possible',
      impact: 'minor',
      count: 12,
      risk_ids: ids.slice(0, 10),
    });
    expect(map.body.cells[24]).toEqual({
      likelihood: 'almost_certain',
      impact: 'severe',
      count: 1,
      risk_ids: [other.id],
    });

    // One cell, paged: the pages put together are the cell's ids, and count stays the whole cell.
    const pages: string[] = [];
    for (const offset of [0, 5, 10, 15]) {
      const page = await t.http
        .get(`${base(s)}/heat-map?likelihood=possible&impact=minor&limit=5&offset=${offset}`)
        .set(bearer(viewer));
      expect(page.status).toBe(200);
      expect(page.body.cells).toHaveLength(1);
      expect(page.body.cells[0].count).toBe(12);
      pages.push(...(page.body.cells[0].risk_ids as string[]));
    }
    expect(pages).toEqual(ids);
    const empty = await t.http
      .get(`${base(s)}/heat-map?likelihood=rare&impact=negligible`)
      .set(bearer(viewer));
    expect(empty.body).toEqual({
      cells: [{ likelihood: 'rare', impact: 'negligible', count: 0, risk_ids: [] }],
    });

    // Counts only.
    const counts = await t.http.get(`${base(s)}/heat-map?limit=0`).set(bearer(viewer));
    expect(counts.body.cells.every((c: { risk_ids: string[] }) => c.risk_ids.length === 0)).toBe(true);
    expect(counts.body.cells.reduce((n: number, c: { count: number }) => n + c.count, 0)).toBe(13);

    // Counts follow risks that change cell or go.
    await t.http
      .put(`${base(s)}/${ids[0]}`)
      .set(bearer(editor))
      .send({ likelihood: 'almost_certain', impact: 'severe' })
      .expect(200);
    await t.http
      .delete(`${base(s)}/${ids[1]}`)
      .set(bearer(admin))
      .expect(204);
    await t.http
      .put(`${base(s)}/${ids[2]}`)
      .set(bearer(editor))
      .send({ title: 'Renamed' })
      .expect(200);
    const moved = await t.http.get(`${base(s)}/heat-map?limit=100`).set(bearer(viewer));
    expect(cellOf(moved.body)).toEqual({
      likelihood: 'possible',
      impact: 'minor',
      count: 10,
      risk_ids: ids.slice(2),
    });
    expect(moved.body.cells[24]).toEqual({
      likelihood: 'almost_certain',
      impact: 'severe',
      count: 2,
      risk_ids: [ids[0], other.id].sort(),
    });

    // A cell is named by both coordinates; bad values are refused.
    for (const [query, field] of [
      ['likelihood=likely', 'impact'],
      ['impact=minor', 'likelihood'],
    ]) {
      const res = await t.http.get(`${base(s)}/heat-map?${query}`).set(bearer(viewer));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual([field]);
    }
    expectProblem(
      await t.http.get(`${base(s)}/heat-map?likelihood=often&impact=minor`).set(bearer(viewer)),
      422,
    );
    expectProblem(await t.http.get(`${base(s)}/heat-map?limit=101`).set(bearer(viewer)), 422);
    expectProblem(await t.http.get(`${base(s)}/heat-map?offset=-1`).set(bearer(viewer)), 422);
    expectProblem(await t.http.get(`${base(s)}/heat-map`).set(bearer(outsider)), 404);
  });

  it('serves templates with valid enum values', async () => {
    const res = await t.http.get(`${base(space)}/templates`).set(bearer(viewer));
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(8);
    const categories = new Set((res.body as { category: string }[]).map((x) => x.category));
    expect(categories).toEqual(
      new Set(['data_quality', 'privacy', 'security', 'compliance', 'operational', 'ai', 'vendor', 'other']),
    );
    // A template can be posted as it is.
    const { key: _key, name, ...fields } = res.body[0];
    const created = await t.http
      .post(base(space))
      .set(bearer(editor))
      .send({ title: name, ...fields });
    expect(created.status).toBe(201);
  });

  it('enforces roles: reads any member, writes edit access, delete space admin, outsiders 404', async () => {
    const risk = await createRisk(space);
    expectProblem(
      await t.http
        .post(base(space))
        .set(bearer(viewer))
        .send({ title: 'x', category: 'other', likelihood: 'rare', impact: 'minor' }),
      403,
    );
    expectProblem(
      await t.http
        .put(`${base(space)}/${risk.id}`)
        .set(bearer(viewer))
        .send({ title: 'y' }),
      403,
    );
    expectProblem(
      await t.http
        .post(`${base(space)}/${risk.id}/link-products`)
        .set(bearer(viewer))
        .send({ product_ids: [risk.id] }),
      403,
    );
    expectProblem(await t.http.delete(`${base(space)}/${risk.id}`).set(bearer(editor)), 403);
    expectProblem(await t.http.get(base(space)).set(bearer(outsider)), 404);
    expectProblem(await t.http.get(`${base(space)}/${risk.id}`).set(bearer(outsider)), 404);
    expectProblem(await t.http.get(`${base(space)}/heat-map`), 401);
    await t.http
      .delete(`${base(space)}/${risk.id}`)
      .set(bearer(admin))
      .expect(204);
    expectProblem(await t.http.get(`${base(space)}/${risk.id}`).set(bearer(viewer)), 404);
    expectProblem(await t.http.delete(`${base(space)}/${risk.id}`).set(bearer(admin)), 404);
    expectProblem(await t.http.get(`${base(space)}/not-a-uuid`).set(bearer(viewer)), 422);
  });

  it('emits risk.created, risk.updated and risk.deleted to the outbox and the audit log', async () => {
    const s = await newSpace();
    const product = await createProduct(t.http, editor, s);
    const risk = await createRisk(s);
    await t.http
      .put(`${base(s)}/${risk.id}`)
      .set(bearer(editor))
      .send({ title: 'Renamed' })
      .expect(200);
    await t.http
      .put(`${base(s)}/${risk.id}`)
      .set(bearer(editor))
      .send({ title: 'Renamed' })
      .expect(200);
    await t.http
      .post(`${base(s)}/${risk.id}/link-products`)
      .set(bearer(editor))
      .send({ product_ids: [product.id] })
      .expect(200);
    await t.http
      .delete(`${base(s)}/${risk.id}`)
      .set(bearer(admin))
      .expect(204);
    await t.app.get(OutboxDispatcher).drain();
    const events = await dbQuery<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox_events WHERE space_id = $1 AND type LIKE 'risk.%' ORDER BY occurred_at, id`,
      [s.id],
    );
    expect(events.map((e) => e.type)).toEqual([
      'risk.created',
      'risk.updated',
      'risk.updated',
      'risk.deleted',
    ]);
    expect(events[1].payload).toEqual(
      expect.objectContaining({ risk_id: risk.id, title: 'Renamed', changed: ['title'] }),
    );
    expect(events[2].payload).toEqual(
      expect.objectContaining({ changed: ['product_ids'], product_ids: [product.id] }),
    );
    const audit = await dbQuery<{ action: string; actor_id: string }>(
      `SELECT action, actor_id FROM audit_log WHERE resource_id = $1 ORDER BY created_at, id`,
      [risk.id],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'risk.created',
      'risk.updated',
      'risk.updated',
      'risk.deleted',
    ]);
    expect(audit[3].actor_id).toBe(admin.id);
  });
});
