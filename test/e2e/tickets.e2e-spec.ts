import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const TICKETS = `${API}/issues/tickets`;

describe('tickets (issue tracker)', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let stranger: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    t = await startApp();
    [admin, editor, viewer, stranger] = await Promise.all([
      createUser(t.http, { first_name: 'Ada', last_name: 'Admin' }),
      createUser(t.http, { first_name: 'Ed', last_name: 'Editor' }),
      createUser(t.http, { first_name: 'Vi', last_name: 'Viewer' }),
      createUser(t.http, { first_name: 'Stan', last_name: 'Stranger' }),
    ]);
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
  });
  afterAll(() => t.close());

  async function file(user: TestUser, fields: Record<string, unknown> = {}, s: TestSpace = space) {
    const res = await t.http
      .post(TICKETS)
      .set(bearer(user))
      .send({ space_id: s.id, title: 'Orders table late', ...fields });
    if (res.status !== 201) throw new Error(`create ticket: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function notificationsOf(user: TestUser, type: string) {
    const res = await t.http.get(`${API}/notifications?type=${type}`).set(bearer(user));
    expect(res.status).toBe(200);
    return res.body.items as { title: string; data: Record<string, unknown> }[];
  }

  it('files a ticket with the reporter as owner, and tells the assignee', async () => {
    const product = await createProduct(t.http, editor, space);
    const res = await t.http.post(TICKETS).set(bearer(editor)).send({
      space_id: space.id,
      title: '  Nightly load failed  ',
      description: 'See the logs.',
      priority: 'high',
      assignee_id: viewer.id,
      product_id: product.id,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      space_id: space.id,
      title: 'Nightly load failed',
      description: 'See the logs.',
      status: 'open',
      priority: 'high',
      reporter: { id: editor.id, full_name: 'Ed Editor' },
      assignee: { id: viewer.id, full_name: 'Vi Viewer' },
      product_id: product.id,
      incident_ids: [],
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const assigned = await notificationsOf(viewer, 'issue_assigned');
    expect(assigned[0]).toEqual(
      expect.objectContaining({
        title: 'Ticket assigned to you: Nightly load failed',
        data: { ticket_id: res.body.id, space_id: space.id },
      }),
    );
    const events = await dbQuery<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox_events WHERE type = 'ticket.created' AND payload->>'ticket_id' = $1`,
      [res.body.id],
    );
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual(expect.objectContaining({ space_id: space.id, priority: 'high' }));
  });

  it('defaults priority to medium and does not notify a self-assignment', async () => {
    const ticket = await file(editor, { assignee_id: editor.id });
    expect(ticket.priority).toBe('medium');
    const assigned = await notificationsOf(editor, 'issue_assigned');
    expect(assigned.find((n) => n.data.ticket_id === ticket.id)).toBeUndefined();
  });

  it('needs edit access to the space: viewer 403, non-member 404', async () => {
    expectProblem(
      await t.http.post(TICKETS).set(bearer(viewer)).send({ space_id: space.id, title: 'x' }),
      403,
    );
    expectProblem(
      await t.http.post(TICKETS).set(bearer(stranger)).send({ space_id: space.id, title: 'x' }),
      404,
    );
    expectProblem(await t.http.post(TICKETS).send({ space_id: space.id, title: 'x' }), 401);
  });

  it('rejects an assignee outside the space, a product of another space and bad fields (422)', async () => {
    const other = await createSpace(t.http, stranger);
    const foreign = await createProduct(t.http, stranger, other);
    const res = await t.http
      .post(TICKETS)
      .set(bearer(editor))
      .send({ space_id: space.id, title: 'x', assignee_id: stranger.id, product_id: foreign.id });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual(['assignee_id', 'product_id']);
    const bad = await t.http
      .post(TICKETS)
      .set(bearer(editor))
      .send({ space_id: 'nope', title: '', priority: 'asap', extra: 1 });
    expectProblem(bad, 422);
    expect(invalidFields(bad)).toEqual(expect.arrayContaining(['space_id', 'title', 'priority', 'extra']));
  });

  it("lists the tickets of the caller's spaces with filters; superadmins see all", async () => {
    const mine = await createSpace(t.http, stranger);
    const strangerTicket = await file(stranger, { title: 'Stranger ticket' }, mine);
    const a = await file(editor, { title: 'List A', assignee_id: viewer.id });
    const b = await file(editor, { title: 'List B' });
    await t.http.patch(`${TICKETS}/${b.id}`).set(bearer(editor)).send({ status: 'in_progress' }).expect(200);

    const all = await t.http.get(`${TICKETS}?limit=200`).set(bearer(viewer));
    expect(all.status).toBe(200);
    const ids = all.body.items.map((x: { id: string }) => x.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(ids).not.toContain(strangerTicket.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id)); // newest first

    const progress = await t.http
      .get(`${TICKETS}?status=in_progress&space_id=${space.id}`)
      .set(bearer(viewer));
    expect(progress.body.items.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect(progress.body.total).toBe(1);
    const assigned = await t.http.get(`${TICKETS}?assignee_id=${viewer.id}`).set(bearer(viewer));
    expect(assigned.body.items.map((x: { id: string }) => x.id)).toContain(a.id);
    expect(assigned.body.items.every((x: { assignee: { id: string } }) => x.assignee.id === viewer.id)).toBe(
      true,
    );

    const page = await t.http.get(`${TICKETS}?space_id=${space.id}&limit=1&skip=1`).set(bearer(viewer));
    expect(page.body.items).toHaveLength(1);
    expect(page.body.total).toBeGreaterThanOrEqual(2);

    expectProblem(await t.http.get(`${TICKETS}?space_id=${mine.id}`).set(bearer(viewer)), 404);
    expectProblem(await t.http.get(`${TICKETS}?status=done`).set(bearer(viewer)), 422);

    const root = await rootUser(t.http);
    const everything = await t.http.get(`${TICKETS}?space_id=${mine.id}`).set(bearer(root));
    expect(everything.body.items.map((x: { id: string }) => x.id)).toEqual([strangerTicket.id]);
  });

  it('hides a ticket from non-members (404) and shows it to any member', async () => {
    const ticket = await file(editor);
    expect((await t.http.get(`${TICKETS}/${ticket.id}`).set(bearer(viewer))).status).toBe(200);
    expectProblem(await t.http.get(`${TICKETS}/${ticket.id}`).set(bearer(stranger)), 404);
    expectProblem(
      await t.http.get(`${TICKETS}/00000000-0000-4000-8000-000000000000`).set(bearer(viewer)),
      404,
    );
    expectProblem(await t.http.get(`${TICKETS}/not-a-uuid`).set(bearer(viewer)), 422);
  });

  it('lets the reporter, the assignee or an editor update; moves status with a closed ticket only reopening', async () => {
    const ticket = await file(admin, { assignee_id: viewer.id, description: 'd' });
    // The viewer is the assignee, so may update.
    const moved = await t.http
      .patch(`${TICKETS}/${ticket.id}`)
      .set(bearer(viewer))
      .send({ status: 'in_progress' });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('in_progress');
    // An editor may reassign; the new assignee hears of it.
    const reassigned = await t.http
      .patch(`${TICKETS}/${ticket.id}`)
      .set(bearer(editor))
      .send({ assignee_id: admin.id, priority: 'urgent', description: null });
    expect(reassigned.body).toEqual(
      expect.objectContaining({
        assignee: { id: admin.id, full_name: 'Ada Admin' },
        priority: 'urgent',
        description: null,
      }),
    );
    expect((await notificationsOf(admin, 'issue_assigned')).some((n) => n.data.ticket_id === ticket.id)).toBe(
      true,
    );
    // The viewer is no longer the assignee and has no edit access.
    expectProblem(
      await t.http.patch(`${TICKETS}/${ticket.id}`).set(bearer(viewer)).send({ title: 'mine now' }),
      403,
    );
    expectProblem(
      await t.http.patch(`${TICKETS}/${ticket.id}`).set(bearer(editor)).send({ assignee_id: stranger.id }),
      422,
    );
    await t.http.patch(`${TICKETS}/${ticket.id}`).set(bearer(editor)).send({ status: 'closed' }).expect(200);
    expectProblem(
      await t.http.patch(`${TICKETS}/${ticket.id}`).set(bearer(editor)).send({ status: 'resolved' }),
      409,
    );
    const reopened = await t.http
      .patch(`${TICKETS}/${ticket.id}`)
      .set(bearer(editor))
      .send({ status: 'open' });
    expect(reopened.body.status).toBe('open');
    const updates = await dbQuery<{ payload: { changed: string[] } }>(
      `SELECT payload FROM outbox_events WHERE type = 'ticket.updated' AND payload->>'ticket_id' = $1 ORDER BY occurred_at`,
      [ticket.id],
    );
    expect(updates.map((u) => u.payload.changed)).toEqual([
      ['status'],
      ['description', 'priority', 'assignee_id'],
      ['status'],
      ['status'],
    ]);
  });

  it('lets only the reporter or a Space Admin delete', async () => {
    const byViewerAssigned = await file(editor, { assignee_id: viewer.id });
    expectProblem(await t.http.delete(`${TICKETS}/${byViewerAssigned.id}`).set(bearer(viewer)), 403);
    await t.http.delete(`${TICKETS}/${byViewerAssigned.id}`).set(bearer(editor)).expect(204);
    expectProblem(await t.http.get(`${TICKETS}/${byViewerAssigned.id}`).set(bearer(editor)), 404);

    const other = await file(editor);
    const otherEditor = await createUser(t.http);
    await addMember(t.http, admin, space, otherEditor, 'editor');
    expectProblem(await t.http.delete(`${TICKETS}/${other.id}`).set(bearer(otherEditor)), 403);
    await t.http.delete(`${TICKETS}/${other.id}`).set(bearer(admin)).expect(204);
    const deleted = await dbQuery(
      `SELECT 1 FROM outbox_events WHERE type = 'ticket.deleted' AND payload->>'ticket_id' = $1`,
      [other.id],
    );
    expect(deleted).toHaveLength(1);
  });

  it('takes comments from any member and notifies mentioned members only', async () => {
    const ticket = await file(editor);
    const res = await t.http
      .post(`${TICKETS}/${ticket.id}/comments`)
      .set(bearer(viewer))
      .send({
        body: `Looks upstream. @${admin.email.toUpperCase()} can you check? cc @${stranger.email} @${viewer.email}`,
      });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      ticket_id: ticket.id,
      body: expect.stringContaining('Looks upstream.'),
      author: { id: viewer.id, full_name: 'Vi Viewer' },
      mentioned_user_ids: expect.arrayContaining([admin.id, viewer.id]),
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.body.mentioned_user_ids).toHaveLength(2);
    const mentions = await notificationsOf(admin, 'issue_mentioned');
    expect(mentions.find((n) => n.data.ticket_id === ticket.id)?.data).toEqual({
      ticket_id: ticket.id,
      comment_id: res.body.id,
      space_id: space.id,
    });
    // Not a member: not told. The author mentioning themselves: not told either.
    expect((await notificationsOf(stranger, 'issue_mentioned')).length).toBe(0);
    expect(
      (await notificationsOf(viewer, 'issue_mentioned')).find((n) => n.data.ticket_id === ticket.id),
    ).toBe(undefined);

    await t.http
      .post(`${TICKETS}/${ticket.id}/comments`)
      .set(bearer(editor))
      .send({ body: 'Second' })
      .expect(201);
    const list = await t.http.get(`${TICKETS}/${ticket.id}/comments`).set(bearer(viewer));
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((c: { body: string }) => c.body)).toEqual([res.body.body, 'Second']);
    const paged = await t.http.get(`${TICKETS}/${ticket.id}/comments?skip=1&limit=1`).set(bearer(viewer));
    expect(paged.body.items.map((c: { body: string }) => c.body)).toEqual(['Second']);

    expectProblem(
      await t.http.post(`${TICKETS}/${ticket.id}/comments`).set(bearer(stranger)).send({ body: 'hi' }),
      404,
    );
    expectProblem(await t.http.get(`${TICKETS}/${ticket.id}/comments`).set(bearer(stranger)), 404);
    expectProblem(
      await t.http.post(`${TICKETS}/${ticket.id}/comments`).set(bearer(viewer)).send({ body: '  ' }),
      422,
    );
    const events = await dbQuery(
      `SELECT 1 FROM outbox_events WHERE type = 'ticket.commented' AND payload->>'ticket_id' = $1`,
      [ticket.id],
    );
    expect(events).toHaveLength(2);
  });

  it('offers the ticket events to webhooks', async () => {
    const res = await t.http.get(`${API}/spaces/${space.slug}/webhooks/event-types`).set(bearer(admin));
    const issues = res.body.find((c: { category: string }) => c.category === 'issues');
    expect(issues.event_types.map((e: { name: string }) => e.name)).toEqual([
      'ticket.created',
      'ticket.updated',
      'ticket.deleted',
      'ticket.commented',
    ]);
  });
});
