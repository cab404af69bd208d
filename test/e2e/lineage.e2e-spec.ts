import { randomUUID } from 'node:crypto';
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
import { LineageService } from '../../src/modules/catalog/lineage.service';
import { DataSource, EntityManager } from 'typeorm';

const API = '/api/v1.0';

describe('lineage', () => {
  let t: TestApp;
  let editor: TestUser;
  let viewer: TestUser;
  let space: TestSpace;
  // a -> b -> c -> d, and x -> c, and b -> e
  const p: Record<string, { id: string; name: string }> = {};
  const edge = (upstream: string, downstream: string, user: TestUser = editor, slug = space.slug) =>
    t.http
      .post(`${API}/catalog/spaces/${slug}/lineage`)
      .set(bearer(user))
      .send({ upstream_id: upstream, downstream_id: downstream });
  const graph = (product: string, query = '') =>
    t.http.get(`${API}/catalog/spaces/${space.slug}/products/${product}/lineage${query}`).set(bearer(viewer));
  // An edge recorded by hand: no OpenLineage job, no column lineage.
  const handMade = (upstream: string, downstream: string) => ({
    upstream_id: upstream,
    downstream_id: downstream,
    job: null,
    column_lineage: [],
  });
  const names = (nodes: { name: string; depth: number }[]) =>
    Object.fromEntries(nodes.map((n) => [n.name, n.depth]));

  beforeAll(async () => {
    t = await startApp();
    editor = await createUser(t.http);
    viewer = await createUser(t.http);
    space = await createSpace(t.http, editor);
    await addMember(t.http, editor, space, viewer, 'viewer');
    for (const key of ['a', 'b', 'c', 'd', 'e', 'x']) {
      p[key] = await createProduct(t.http, editor, space, { name: key });
    }
    for (const [u, d] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['x', 'c'],
      ['b', 'e'],
    ]) {
      const res = await edge(p[u].id, p[d].id);
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  it('answers the created edge', async () => {
    const extra = await createProduct(t.http, editor, space);
    const res = await edge(p.d.id, extra.id);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      upstream_id: p.d.id,
      downstream_id: extra.id,
      space_id: space.id,
      created_at: expect.stringMatching(/Z$/),
    });
    const events = await dbQuery<{ type: string }>(
      `SELECT type FROM outbox_events WHERE type = 'lineage.changed' AND payload->>'downstream_id' = $1`,
      [extra.id],
    );
    expect(events).toHaveLength(1);
    expect(
      (await t.http.delete(`${API}/catalog/spaces/${space.slug}/products/${extra.id}`).set(bearer(editor)))
        .status,
    ).toBe(204);
  });

  it('rejects duplicates, self edges and cycles (409)', async () => {
    expectProblem(await edge(p.a.id, p.b.id), 409, /already exists/);
    expectProblem(await edge(p.a.id, p.a.id), 409, /cycle/);
    expectProblem(await edge(p.d.id, p.a.id), 409, /cycle/);
    expectProblem(await edge(p.c.id, p.b.id), 409, /cycle/);
    // A diamond is not a cycle.
    expect((await edge(p.a.id, p.c.id)).status).toBe(201);
    await t.http
      .delete(`${API}/catalog/spaces/${space.slug}/lineage/${p.a.id}/${p.c.id}`)
      .set(bearer(editor));
  });

  it('needs products of the space (422) and edit access (403)', async () => {
    const other = await createSpace(t.http, editor);
    const foreign = await createProduct(t.http, editor, other);
    const res = await edge(p.a.id, foreign.id);
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['downstream_id']);
    const ghost = await edge(randomUUID(), randomUUID());
    expect(invalidFields(ghost)).toEqual(['upstream_id', 'downstream_id']);
    expectProblem(await edge(p.d.id, p.e.id, viewer), 403);
    const malformed = await edge('nope', p.a.id);
    expectProblem(malformed, 422);
    const stranger = await createUser(t.http);
    expectProblem(await edge(p.d.id, p.e.id, stranger), 404);
  });

  it('walks downstream, upstream or both, with the product at depth 0', async () => {
    const down = await graph(p.b.id, '?direction=downstream&depth=5');
    expect(down.status).toBe(200);
    expect(names(down.body.nodes)).toEqual({ b: 0, c: 1, e: 1, d: 2 });
    expect(down.body.edges).toHaveLength(3);
    expect(down.body.edges).toEqual(
      expect.arrayContaining([handMade(p.b.id, p.c.id), handMade(p.b.id, p.e.id), handMade(p.c.id, p.d.id)]),
    );
    const up = await graph(p.d.id, '?direction=upstream&depth=20');
    expect(names(up.body.nodes)).toEqual({ d: 0, c: 1, b: 2, x: 2, a: 3 });
    expect(up.body.edges).toHaveLength(4);

    const both = await graph(p.c.id, '?direction=both&depth=1');
    expect(names(both.body.nodes)).toEqual({ c: 0, b: 1, x: 1, d: 1 });
    expect(both.body.nodes[0]).toEqual({ id: p.c.id, name: 'c', depth: 0 });

    const byDefault = await graph(p.c.id);
    expect(names(byDefault.body.nodes)).toEqual({ c: 0, b: 1, x: 1, d: 1, a: 2 });
  });

  it('limits the walk to depth hops', async () => {
    const res = await graph(p.a.id, '?direction=downstream&depth=1');
    expect(names(res.body.nodes)).toEqual({ a: 0, b: 1 });
    expect(res.body.edges).toEqual([handMade(p.a.id, p.b.id)]);
    const lonely = await createProduct(t.http, editor, space);
    const alone = await graph(lonely.id);
    expect(alone.body).toEqual({ nodes: [{ id: lonely.id, name: lonely.name, depth: 0 }], edges: [] });
  });

  it.each(['?depth=0', '?depth=21', '?depth=x', '?direction=sideways'])('rejects %s (422)', async (query) => {
    expectProblem(await graph(p.a.id, query), 422);
  });

  it('answers 404 for a product outside the space', async () => {
    expectProblem(await graph(randomUUID()), 404);
  });

  it('removes edges (204; 404 when missing) and records the change', async () => {
    const u = await createProduct(t.http, editor, space);
    const d = await createProduct(t.http, editor, space);
    await edge(u.id, d.id);
    const path = `${API}/catalog/spaces/${space.slug}/lineage/${u.id}/${d.id}`;
    expectProblem(await t.http.delete(path).set(bearer(viewer)), 403);
    expect((await t.http.delete(path).set(bearer(editor))).status).toBe(204);
    expectProblem(await t.http.delete(path).set(bearer(editor)), 404);
    const actions = await dbQuery<{ action: string }>(
      `SELECT payload->>'action' AS action FROM outbox_events WHERE type = 'lineage.changed' AND payload->>'upstream_id' = $1 ORDER BY occurred_at`,
      [u.id],
    );
    expect(actions.map((a) => a.action)).toEqual(['added', 'removed']);
    // The reverse edge is allowed now.
    expect((await edge(d.id, u.id)).status).toBe(201);
  });

  describe('service helpers for other modules', () => {
    let lineage: LineageService;
    // No transaction here: the helpers read on the DataSource's manager.
    let em: EntityManager;

    beforeAll(() => {
      lineage = t.app.get(LineageService);
      em = t.app.get(DataSource).manager;
    });

    it('downstreamOf answers the whole blast radius, any depth', async () => {
      expect((await lineage.downstreamOf(p.a.id, em)).sort()).toEqual(
        [p.b.id, p.c.id, p.d.id, p.e.id].sort(),
      );
      expect(await lineage.downstreamOf(p.d.id, em)).toEqual([]);
    });

    it('connected follows lineage in either direction', async () => {
      expect(await lineage.connected(p.a.id, p.d.id, em)).toBe(true);
      expect(await lineage.connected(p.d.id, p.x.id, em)).toBe(true);
      expect(await lineage.connected(p.e.id, p.d.id, em)).toBe(false);
      expect(await lineage.connected(p.x.id, p.x.id, em)).toBe(true);
    });

    it('mostUpstream picks the member nothing else in the set feeds', async () => {
      expect(await lineage.mostUpstream([p.d.id, p.c.id, p.b.id], em)).toBe(p.b.id);
      expect(await lineage.mostUpstream([p.e.id, p.d.id, p.a.id], em)).toBe(p.a.id);
      expect(await lineage.mostUpstream([p.d.id], em)).toBe(p.d.id);
      expect(await lineage.mostUpstream([], em)).toBeNull();
    });
  });
});
