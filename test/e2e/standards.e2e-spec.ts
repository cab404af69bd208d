import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, bearer, createSpace, createUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const NIL = '00000000-0000-4000-8000-000000000000';

describe('standards pages over HTTP', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;
  const path = (suffix = '') => `${API}/spaces/${space.slug}/standards${suffix}`;

  beforeAll(async () => {
    t = await startApp();
    [admin, editor, viewer, outsider] = await Promise.all([
      createUser(t.http, { first_name: 'Admin' }),
      createUser(t.http, { first_name: 'Editor' }),
      createUser(t.http, { first_name: 'Viewer' }),
      createUser(t.http, { first_name: 'Outsider' }),
    ]);
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
  });
  afterAll(() => t.close());

  const create = (user: TestUser, body: object) => t.http.post(path()).set(bearer(user)).send(body);

  it('creates a draft by default, with the full record', async () => {
    const res = await create(editor, { title: '  Naming conventions ', body: 'Tables are snake_case.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      space_slug: space.slug,
      title: 'Naming conventions',
      body: 'Tables are snake_case.',
      status: 'draft',
      published_at: null,
      created_by: editor.id,
      updated_by: editor.id,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it('creates a published page when asked, with published_at set', async () => {
    const res = await create(editor, { title: 'Retention', body: 'Keep logs 90 days.', status: 'published' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('published');
    expect(res.body.published_at).toEqual(expect.stringMatching(/Z$/));
  });

  it('refuses invalid bodies with 422 naming the fields', async () => {
    const res = await create(editor, { title: '', status: 'archived', extra: 1 });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual(['extra', 'status', 'title']);
    expectProblem(await create(editor, { title: 'x'.repeat(301) }), 422);
    expectProblem(await create(editor, { title: 'ok', body: 42 }), 422);
  });

  it('lets only editors write: a viewer is 403 (whatever the page), a non-member 404', async () => {
    expectProblem(await create(viewer, { title: 'Nope' }), 403);
    expectProblem(await create(outsider, { title: 'Nope' }), 404);
    const page = (await create(editor, { title: 'Editable' })).body;
    expectProblem(
      await t.http
        .patch(path(`/${page.id}`))
        .set(bearer(viewer))
        .send({ title: 'x' }),
      403,
    );
    expectProblem(await t.http.delete(path(`/${page.id}`)).set(bearer(viewer)), 403);
    const published = (await create(editor, { title: 'Published one', status: 'published' })).body;
    expectProblem(
      await t.http
        .patch(path(`/${published.id}`))
        .set(bearer(viewer))
        .send({ title: 'x' }),
      403,
    );
    expectProblem(await t.http.post(path(`/${published.id}/unpublish`)).set(bearer(viewer)), 403);
    expectProblem(await t.http.get(path()).set(bearer(outsider)), 404);
  });

  it('shows drafts to editors only: a viewer gets 404 and lists without them', async () => {
    const draft = (await create(editor, { title: 'Secret draft' })).body;
    const published = (await create(editor, { title: 'Public page', status: 'published' })).body;
    expect((await t.http.get(path(`/${draft.id}`)).set(bearer(editor))).status).toBe(200);
    expect((await t.http.get(path(`/${draft.id}`)).set(bearer(admin))).status).toBe(200);
    expectProblem(await t.http.get(path(`/${draft.id}`)).set(bearer(viewer)), 404);
    expect((await t.http.get(path(`/${published.id}`)).set(bearer(viewer))).body.title).toBe('Public page');

    const viewerList = await t.http.get(path()).set(bearer(viewer));
    expect(viewerList.status).toBe(200);
    expect(viewerList.body.items.every((p: { status: string }) => p.status === 'published')).toBe(true);
    expect(viewerList.body.items.map((p: { id: string }) => p.id)).toContain(published.id);
    expect(viewerList.body.total).toBe(viewerList.body.items.length);
    expect((await t.http.get(path('?status=draft')).set(bearer(viewer))).body).toEqual({
      items: [],
      total: 0,
    });

    const editorList = await t.http.get(path()).set(bearer(editor));
    expect(editorList.body.items.map((p: { id: string }) => p.id)).toEqual(
      expect.arrayContaining([draft.id, published.id]),
    );
    const drafts = await t.http.get(path('?status=draft')).set(bearer(editor));
    expect(drafts.body.items.every((p: { status: string }) => p.status === 'draft')).toBe(true);
  });

  it('pages the list with skip and limit, newest change first', async () => {
    const other = await createSpace(t.http, admin);
    for (const title of ['One', 'Two', 'Three']) {
      await t.http.post(`${API}/spaces/${other.slug}/standards`).set(bearer(admin)).send({ title });
    }
    const page = await t.http.get(`${API}/spaces/${other.slug}/standards?skip=1&limit=1`).set(bearer(admin));
    expect(page.body.total).toBe(3);
    expect(page.body.items.map((p: { title: string }) => p.title)).toEqual(['Two']);
    expectProblem(
      await t.http.get(`${API}/spaces/${other.slug}/standards?limit=201`).set(bearer(admin)),
      422,
    );
  });

  it('updates partially, publishes and unpublishes with 409 on a repeated move', async () => {
    const page = (await create(editor, { title: 'Lifecycle', body: 'v1' })).body;
    const patched = await t.http
      .patch(path(`/${page.id}`))
      .set(bearer(editor))
      .send({ body: 'v2' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Lifecycle', body: 'v2', status: 'draft' });

    const published = await t.http.post(path(`/${page.id}/publish`)).set(bearer(editor));
    expect(published.status).toBe(200);
    expect(published.body.status).toBe('published');
    expect(published.body.published_at).toEqual(expect.stringMatching(/Z$/));
    expectProblem(await t.http.post(path(`/${page.id}/publish`)).set(bearer(editor)), 409);

    const unpublished = await t.http.post(path(`/${page.id}/unpublish`)).set(bearer(admin));
    expect(unpublished.body).toMatchObject({ status: 'draft', published_at: null, updated_by: admin.id });
    expectProblem(await t.http.post(path(`/${page.id}/unpublish`)).set(bearer(editor)), 409);

    const viaPatch = await t.http
      .patch(path(`/${page.id}`))
      .set(bearer(editor))
      .send({ status: 'published' });
    expect(viaPatch.body.status).toBe('published');
  });

  it('deletes with 204, then 404; malformed and unknown ids are 422 and 404', async () => {
    const page = (await create(editor, { title: 'Short-lived' })).body;
    expect((await t.http.delete(path(`/${page.id}`)).set(bearer(editor))).status).toBe(204);
    expectProblem(await t.http.get(path(`/${page.id}`)).set(bearer(editor)), 404);
    expectProblem(await t.http.delete(path(`/${page.id}`)).set(bearer(editor)), 404);
    expectProblem(await t.http.get(path('/not-a-uuid')).set(bearer(editor)), 422);
    expectProblem(await t.http.post(path(`/${NIL}/publish`)).set(bearer(editor)), 404);
  });

  it('keeps pages of one space out of another', async () => {
    const page = (await create(editor, { title: 'Mine', status: 'published' })).body;
    const other = await createSpace(t.http, editor);
    expectProblem(
      await t.http.get(`${API}/spaces/${other.slug}/standards/${page.id}`).set(bearer(editor)),
      404,
    );
  });

  it('writes standard_page events to the outbox and the audit log, and lists them for webhooks', async () => {
    const page = (await create(editor, { title: 'Evented', body: 'a' })).body;
    await t.http
      .patch(path(`/${page.id}`))
      .set(bearer(editor))
      .send({ title: 'Evented 2' });
    await t.http.post(path(`/${page.id}/publish`)).set(bearer(editor));
    await t.http.post(path(`/${page.id}/unpublish`)).set(bearer(editor));
    await t.http.delete(path(`/${page.id}`)).set(bearer(editor));
    const events = await dbQuery<{ type: string; payload: Record<string, unknown>; actor_id: string }>(
      `SELECT type, payload, actor_id FROM outbox_events WHERE payload->>'standard_page_id' = $1 ORDER BY occurred_at, type`,
      [page.id],
    );
    expect(events.map((e) => e.type)).toEqual([
      'standard_page.created',
      'standard_page.updated',
      'standard_page.published',
      'standard_page.unpublished',
      'standard_page.deleted',
    ]);
    expect(events[1].payload).toMatchObject({ space_id: space.id, title: 'Evented 2', changed: ['title'] });
    expect(events.every((e) => e.actor_id === editor.id)).toBe(true);
    const audit = await dbQuery<{ action: string }>(
      `SELECT action FROM audit_log WHERE resource_type = 'standard_page' AND resource_id = $1`,
      [page.id],
    );
    expect(audit).toHaveLength(5);
    await t.app.get(OutboxDispatcher).drain();

    const types = await t.http.get(`${API}/spaces/${space.slug}/webhooks/event-types`).set(bearer(admin));
    const standards = types.body.find((c: { category: string }) => c.category === 'standards');
    expect(standards.event_types.map((e: { name: string }) => e.name).sort()).toEqual([
      'standard_page.created',
      'standard_page.deleted',
      'standard_page.published',
      'standard_page.unpublished',
      'standard_page.updated',
    ]);
  });
});
