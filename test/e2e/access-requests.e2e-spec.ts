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

const API = '/api/v1.0';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

/** `date` written with a +05:30 offset, as a client in India would send it. */
function withOffset(date: Date): string {
  const shifted = new Date(date.getTime() + 330 * 60_000);
  return `${shifted.toISOString().slice(0, 19)}+05:30`;
}

describe('access requests', () => {
  let t: TestApp;
  let admin: TestUser;
  let owner: TestUser;
  let steward: TestUser;
  let editor: TestUser;
  let requester: TestUser;
  let space: TestSpace;
  let product: { id: string; name: string };
  const base = () => `${API}/catalog/spaces/${space.slug}`;
  const submit = (user: TestUser, body: Record<string, unknown>, productId = product.id) =>
    t.http.post(`${base()}/products/${productId}/access-requests`).set(bearer(user)).send(body);
  const decide = (
    user: TestUser,
    id: string,
    verb: 'approve' | 'reject',
    body: Record<string, unknown> = {},
  ) => t.http.post(`${base()}/access-requests/${id}/${verb}`).set(bearer(user)).send(body);

  beforeAll(async () => {
    t = await startApp();
    admin = await createUser(t.http, { first_name: 'Ada' });
    owner = await createUser(t.http, { first_name: 'Olga', last_name: 'Owner' });
    steward = await createUser(t.http, { first_name: 'Stan' });
    editor = await createUser(t.http, { first_name: 'Ed' });
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, owner, 'editor');
    await addMember(t.http, admin, space, steward, 'viewer');
    await addMember(t.http, admin, space, editor, 'editor');
    product = await createProduct(t.http, owner, space, { owner_ids: [owner.id], steward_ids: [steward.id] });
  });
  beforeEach(async () => {
    requester = await createUser(t.http, { first_name: 'Rita', last_name: 'Requester' });
    await addMember(t.http, admin, space, requester, 'viewer');
  });
  afterAll(() => t.close());

  it('lets any member ask for access; times with offsets are stored in UTC', async () => {
    const until = inDays(30);
    const res = await submit(requester, {
      justification: 'Quarterly report',
      access_level: 'read',
      requested_until: withOffset(until),
    });
    expect(res.status).toBe(201);
    const utc = new Date(Math.floor(until.getTime() / 1000) * 1000).toISOString();
    expect(res.body).toEqual({
      id: expect.any(String),
      space_id: space.id,
      product_id: product.id,
      product_name: product.name,
      requester: { id: requester.id, full_name: 'Rita Requester' },
      access_level: 'read',
      justification: 'Quarterly report',
      requested_until: utc,
      status: 'pending',
      is_active: false,
      expires_at: null,
      decided_by: null,
      decided_at: null,
      rejection_reason: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const [row] = await dbQuery<{ utc: string }>(
      `SELECT to_char(requested_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS utc FROM access_requests WHERE id = $1`,
      [res.body.id],
    );
    expect(`${row.utc}.000Z`).toBe(utc);
    const events = await dbQuery(`SELECT type FROM outbox_events WHERE payload->>'request_id' = $1`, [
      res.body.id,
    ]);
    expect(events).toEqual([{ type: 'access_request.submitted' }]);
  });

  it('rejects invalid requests (422), a second pending one (409) and unknown products (404)', async () => {
    for (const [body, field] of [
      [{ access_level: 'read' }, 'justification'],
      [{ justification: 'x', access_level: 'admin' }, 'access_level'],
      [{ justification: 'x', access_level: 'read', requested_until: 'tomorrow' }, 'requested_until'],
      [
        { justification: 'x', access_level: 'read', requested_until: inDays(-1).toISOString() },
        'requested_until',
      ],
      [{ justification: 'x', access_level: 'read', extra: true }, 'extra'],
    ] as const) {
      const res = await submit(requester, body);
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain(field);
    }
    expect((await submit(requester, { justification: 'x', access_level: 'read' })).status).toBe(201);
    expectProblem(await submit(requester, { justification: 'again', access_level: 'write' }), 409);
    expectProblem(await submit(requester, { justification: 'x', access_level: 'read' }, randomUUID()), 404);
    const stranger = await createUser(t.http);
    expectProblem(await submit(stranger, { justification: 'x', access_level: 'read' }), 404);
  });

  it("is decided by the product's owners or stewards or a space admin only (403 otherwise)", async () => {
    const byOwner = await submit(requester, { justification: 'a', access_level: 'read' });
    expectProblem(await decide(editor, byOwner.body.id, 'approve'), 403);
    expectProblem(await decide(requester, byOwner.body.id, 'approve'), 403);
    const approved = await decide(owner, byOwner.body.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual(
      expect.objectContaining({
        status: 'approved',
        is_active: true,
        expires_at: null,
        decided_by: { id: owner.id, full_name: 'Olga Owner' },
        decided_at: expect.stringMatching(/Z$/),
      }),
    );
    const audit = await dbQuery(`SELECT action FROM audit_log WHERE resource_id = $1`, [byOwner.body.id]);
    expect(audit).toEqual([{ action: 'access_request.approved' }]);

    const second = await createUser(t.http);
    await addMember(t.http, admin, space, second, 'viewer');
    const bySteward = await submit(second, { justification: 'b', access_level: 'write' });
    const rejected = await decide(steward, bySteward.body.id, 'reject', { reason: 'Not needed' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual(
      expect.objectContaining({ status: 'rejected', is_active: false, rejection_reason: 'Not needed' }),
    );

    const third = await createUser(t.http);
    await addMember(t.http, admin, space, third, 'viewer');
    const byAdmin = await submit(third, { justification: 'c', access_level: 'read' });
    expect((await decide(admin, byAdmin.body.id, 'approve')).status).toBe(200);
  });

  it('moves only from pending (409 otherwise)', async () => {
    const req = await submit(requester, { justification: 'a', access_level: 'read' });
    await decide(owner, req.body.id, 'reject', { reason: 'No' });
    expectProblem(await decide(owner, req.body.id, 'approve'), 409);
    expectProblem(await decide(owner, req.body.id, 'reject', { reason: 'Still no' }), 409);
    const other = await submit(requester, { justification: 'b', access_level: 'read' });
    await decide(owner, other.body.id, 'approve');
    expectProblem(await decide(admin, other.body.id, 'reject', { reason: 'Changed my mind' }), 409);
    expectProblem(await decide(owner, randomUUID(), 'approve'), 404);
    const missingReason = await decide(owner, other.body.id, 'reject', {});
    expectProblem(missingReason, 422);
    expect([...new Set(invalidFields(missingReason))]).toEqual(['reason']);
  });

  it('stores the expiry in UTC, defaults it to the requested end, and refuses a past one (422)', async () => {
    const req = await submit(requester, { justification: 'a', access_level: 'read' });
    const past = await decide(owner, req.body.id, 'approve', { expires_at: inDays(-1).toISOString() });
    expectProblem(past, 422);
    expect(invalidFields(past)).toEqual(['expires_at']);
    const end = inDays(7);
    const approved = await decide(owner, req.body.id, 'approve', { expires_at: withOffset(end) });
    expect(approved.body.expires_at).toBe(new Date(Math.floor(end.getTime() / 1000) * 1000).toISOString());

    const second = await createUser(t.http);
    await addMember(t.http, admin, space, second, 'viewer');
    const asked = inDays(3);
    const withUntil = await submit(second, {
      justification: 'b',
      access_level: 'read',
      requested_until: asked.toISOString(),
    });
    const defaulted = await decide(owner, withUntil.body.id, 'approve');
    expect(defaulted.body.expires_at).toBe(asked.toISOString());
  });

  it('shows an approved grant as expired once its time has passed', async () => {
    const late = await createUser(t.http);
    await addMember(t.http, admin, space, late, 'viewer');
    const req = await submit(requester, { justification: 'short', access_level: 'read' });
    // Both the grant and the other request's wish end shortly.
    const soon = new Date(Date.now() + 2500);
    await decide(owner, req.body.id, 'approve', { expires_at: soon.toISOString() });
    const lateRequest = await submit(late, {
      justification: 'brief',
      access_level: 'read',
      requested_until: soon.toISOString(),
    });
    const active = await t.http.get(`${base()}/access-requests?status=approved`).set(bearer(requester));
    expect(active.body.items.map((r: { id: string }) => r.id)).toContain(req.body.id);
    await new Promise((done) => setTimeout(done, soon.getTime() + 200 - Date.now()));
    const list = await t.http.get(`${base()}/access-requests?status=expired`).set(bearer(requester));
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: req.body.id, status: 'expired', is_active: false }),
    ]);
    const approvedNow = await t.http.get(`${base()}/access-requests?status=approved`).set(bearer(requester));
    expect(approvedNow.body.items.map((r: { id: string }) => r.id)).not.toContain(req.body.id);
    expectProblem(await decide(owner, req.body.id, 'reject', { reason: 'late' }), 409);
    // The requested end passed before the decision: an explicit expiry is needed.
    const open = await decide(owner, lateRequest.body.id, 'approve');
    expectProblem(open, 422);
    expect(invalidFields(open)).toEqual(['expires_at']);
    const explicit = await decide(owner, lateRequest.body.id, 'approve', { expires_at: null });
    expect(explicit.body).toEqual(
      expect.objectContaining({ status: 'approved', expires_at: null, is_active: true }),
    );
  });

  it('lists every request for admins, and their own or governed ones for others', async () => {
    const mine = await submit(requester, { justification: 'mine', access_level: 'read' });
    const otherProduct = await createProduct(t.http, editor, space, { owner_ids: [editor.id] });
    const elsewhere = await submit(
      requester,
      { justification: 'other', access_level: 'read' },
      otherProduct.id,
    );

    const asAdmin = await t.http.get(`${base()}/access-requests?limit=200`).set(bearer(admin));
    const adminIds = asAdmin.body.items.map((r: { id: string }) => r.id);
    expect(adminIds).toEqual(expect.arrayContaining([mine.body.id, elsewhere.body.id]));
    expect(asAdmin.body.total).toBe(adminIds.length);

    const asRequester = await t.http.get(`${base()}/access-requests`).set(bearer(requester));
    expect(asRequester.body.items.map((r: { id: string }) => r.id)).toEqual([
      elsewhere.body.id,
      mine.body.id,
    ]);
    expect(asRequester.body.total).toBe(2);

    const asOwner = await t.http.get(`${base()}/access-requests?status=pending&limit=200`).set(bearer(owner));
    const ownerIds = asOwner.body.items.map((r: { id: string }) => r.id);
    expect(ownerIds).toContain(mine.body.id);
    expect(ownerIds).not.toContain(elsewhere.body.id);
    expect(asOwner.body.items.every((r: { status: string }) => r.status === 'pending')).toBe(true);

    const byProduct = await t.http
      .get(`${base()}/access-requests?product_id=${otherProduct.id}`)
      .set(bearer(editor));
    expect(byProduct.body.items.map((r: { id: string }) => r.id)).toEqual([elsewhere.body.id]);

    const paged = await t.http.get(`${base()}/access-requests?limit=1&skip=1`).set(bearer(requester));
    expect(paged.body).toEqual({ items: [expect.objectContaining({ id: mine.body.id })], total: 2 });

    expectProblem(await t.http.get(`${base()}/access-requests?status=lost`).set(bearer(admin)), 422);
    const stranger = await createUser(t.http);
    expectProblem(await t.http.get(`${base()}/access-requests`).set(bearer(stranger)), 404);
  });
});
