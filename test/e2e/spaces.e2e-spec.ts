import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, bearer, createSpace, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { SpaceAccessPort } from '../../src/common/permissions/space-access.port';

const API = '/api/v1.0';
const tag = () => randomUUID().slice(0, 8);

describe('spaces', () => {
  let t: TestApp;
  let root: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    alice = await createUser(t.http, { first_name: 'Alice' });
    bob = await createUser(t.http, { first_name: 'Bob' });
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('creates a space, makes the creator its admin and turns quality.incidents on', async () => {
      const slug = `data-${tag()}`;
      const res = await t.http
        .post(`${API}/spaces`)
        .set(bearer(alice))
        .send({ name: 'Data Platform', slug, description: 'Where the data lives' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Data Platform',
        slug,
        description: 'Where the data lives',
        features: { 'quality.incidents': true },
        role: 'admin',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      const members = await t.http.get(`${API}/spaces/${slug}/members`).set(bearer(alice));
      expect(members.status).toBe(200);
      expect(members.body).toEqual({
        items: [expect.objectContaining({ user_id: alice.id, role: 'admin', email: alice.email })],
        total: 1,
      });
      const events = await dbQuery<{ type: string; actor_id: string }>(
        `SELECT type, actor_id FROM outbox_events WHERE space_id = $1`,
        [res.body.id],
      );
      expect(events).toEqual([{ type: 'space.created', actor_id: alice.id }]);
    });

    it('derives the slug from the name and picks a free suffix when it is taken', async () => {
      const name = `Finance & Risk ${tag()}`;
      const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const first = await t.http.post(`${API}/spaces`).set(bearer(alice)).send({ name });
      expect(first.status).toBe(201);
      expect(first.body.slug).toBe(base);
      const second = await t.http.post(`${API}/spaces`).set(bearer(bob)).send({ name });
      expect(second.body.slug).toBe(`${base}-2`);
      const third = await t.http
        .post(`${API}/spaces`)
        .set(bearer(bob))
        .send({ name: `  ${name.toUpperCase()} ` });
      expect(third.body.slug).toBe(`${base}-3`);
    });

    it('answers 409 for an explicit slug that is taken', async () => {
      const space = await createSpace(t.http, alice);
      const res = await t.http
        .post(`${API}/spaces`)
        .set(bearer(bob))
        .send({ name: 'Other', slug: space.slug });
      expectProblem(res, 409, /slug/);
    });

    it.each([
      ['an upper-case slug', { name: 'X', slug: 'Bad-Slug' }, 'slug'],
      ['a one-character slug', { name: 'X', slug: 'a' }, 'slug'],
      ['a slug starting with a hyphen', { name: 'X', slug: '-abc' }, 'slug'],
      ['a UUID-shaped slug', { name: 'X', slug: randomUUID() }, 'slug'],
      ['a missing name', { slug: 'fine-slug' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['an unknown field', { name: 'X', owner: 'me' }, 'owner'],
    ])('answers 422 for %s', async (_label, body, field) => {
      const res = await t.http.post(`${API}/spaces`).set(bearer(alice)).send(body);
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain(field);
    });

    it('needs a signed-in caller', async () => {
      expectProblem(await t.http.post(`${API}/spaces`).send({ name: 'Anon' }), 401);
    });
  });

  describe('read', () => {
    it("lists the caller's spaces, and every space for a superadmin", async () => {
      const carol = await createUser(t.http, { first_name: 'Carol' });
      const mine = await createSpace(t.http, carol, { name: `B carol ${tag()}` });
      const other = await createSpace(t.http, carol, { name: `A carol ${tag()}` });
      const foreign = await createSpace(t.http, alice);
      const res = await t.http.get(`${API}/spaces`).set(bearer(carol));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.items.map((s: { slug: string }) => s.slug)).toEqual([other.slug, mine.slug]);
      const paged = await t.http.get(`${API}/spaces?skip=1&limit=1`).set(bearer(carol));
      expect(paged.body).toEqual({ items: [expect.objectContaining({ slug: mine.slug })], total: 2 });

      const all = await t.http.get(`${API}/spaces?limit=200`).set(bearer(root));
      expect(all.body.total).toBeGreaterThanOrEqual(3);
      const seen = await t.http.get(`${API}/spaces?limit=200&skip=0`).set(bearer(root));
      const rootView = [...seen.body.items];
      for (let skip = 200; skip < all.body.total; skip += 200) {
        rootView.push(
          ...(await t.http.get(`${API}/spaces?limit=200&skip=${skip}`).set(bearer(root))).body.items,
        );
      }
      expect(rootView.find((s: { slug: string }) => s.slug === foreign.slug)).toEqual(
        expect.objectContaining({ role: null }),
      );
    });

    it('gets a space for members and hides it (404) from others', async () => {
      const space = await createSpace(t.http, alice);
      await addMember(t.http, alice, space, bob, 'viewer');
      const asViewer = await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(bob));
      expect(asViewer.status).toBe(200);
      expect(asViewer.body).toEqual(expect.objectContaining({ id: space.id, role: 'viewer' }));
      const stranger = await createUser(t.http);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(stranger)), 404);
      expectProblem(await t.http.get(`${API}/spaces/no-such-space-${tag()}`).set(bearer(alice)), 404);
      const asRoot = await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(root));
      expect(asRoot.status).toBe(200);
      expect(asRoot.body.role).toBeNull();
    });
  });

  describe('update and delete', () => {
    it('lets a space admin rename it; editors get 403, non-members 404', async () => {
      const space = await createSpace(t.http, alice);
      await addMember(t.http, alice, space, bob, 'editor');
      const res = await t.http
        .patch(`${API}/spaces/${space.slug}`)
        .set(bearer(alice))
        .send({ name: 'Renamed', description: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ name: 'Renamed', description: null, slug: space.slug }),
      );
      expectProblem(
        await t.http.patch(`${API}/spaces/${space.slug}`).set(bearer(bob)).send({ name: 'No' }),
        403,
      );
      const stranger = await createUser(t.http);
      expectProblem(
        await t.http.patch(`${API}/spaces/${space.slug}`).set(bearer(stranger)).send({ name: 'No' }),
        404,
      );
      const slugChange = await t.http
        .patch(`${API}/spaces/${space.slug}`)
        .set(bearer(alice))
        .send({ slug: 'x-y' });
      expectProblem(slugChange, 422);
      expect(invalidFields(slugChange)).toEqual(['slug']);
    });

    it('lets only a superadmin delete a space, with everything in it', async () => {
      const space = await createSpace(t.http, alice);
      expectProblem(await t.http.delete(`${API}/spaces/${space.slug}`).set(bearer(alice)), 403);
      const res = await t.http.delete(`${API}/spaces/${space.slug}`).set(bearer(root));
      expect(res.status).toBe(204);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(alice)), 404);
      expectProblem(await t.http.delete(`${API}/spaces/${space.slug}`).set(bearer(root)), 404);
      const audit = await dbQuery(`SELECT action FROM audit_log WHERE resource_id = $1`, [space.id]);
      expect(audit).toEqual([{ action: 'space.deleted' }]);
      const members = await dbQuery(`SELECT 1 FROM space_memberships WHERE space_id = $1`, [space.id]);
      expect(members).toEqual([]);
    });
  });

  describe('features', () => {
    it('lets a space admin switch a feature and answers the space', async () => {
      const space = await createSpace(t.http, alice);
      const off = await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.incidents': false });
      expect(off.status).toBe(200);
      expect(off.body).toEqual(
        expect.objectContaining({ id: space.id, features: { 'quality.incidents': false } }),
      );
      const read = await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(alice));
      expect(read.body.features).toEqual({ 'quality.incidents': false });
      const unchanged = await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({});
      expect(unchanged.body.features).toEqual({ 'quality.incidents': false });
      const on = await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.incidents': true });
      expect(on.body.features).toEqual({ 'quality.incidents': true });
    });

    it('lets other modules check a feature: 403 naming it when it is off', async () => {
      const access = t.app.get(SpaceAccessPort);
      const space = await createSpace(t.http, alice);
      const actor = { userId: alice.id, email: alice.email, isSuperadmin: false } as Parameters<
        SpaceAccessPort['requireRole']
      >[0];
      // Outside a transaction: the DataSource's manager.
      const em = t.app.get(DataSource).manager;
      const on = await access.requireRole(actor, space.slug, 'viewer', em);
      expect(() => access.requireFeature(on.space, 'quality.incidents')).not.toThrow();
      await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.incidents': false });
      const off = await access.requireRole(actor, space.id, 'admin', em);
      expect(off).toEqual(expect.objectContaining({ role: 'admin', effectiveRole: 'admin' }));
      expect(() => access.requireFeature(off.space, 'quality.incidents')).toThrow(
        expect.objectContaining({ status: 403, detail: expect.stringContaining('quality.incidents') }),
      );
    });

    it('rejects unknown features and non-booleans (422) and non-admins (403)', async () => {
      const space = await createSpace(t.http, alice);
      await addMember(t.http, alice, space, bob, 'editor');
      const unknown = await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.teleport': true });
      expectProblem(unknown, 422);
      expect(invalidFields(unknown)).toEqual(['quality.teleport']);
      const notBoolean = await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(alice))
        .send({ 'quality.incidents': 'no' });
      expectProblem(notBoolean, 422);
      expectProblem(
        await t.http
          .patch(`${API}/spaces/${space.slug}/features`)
          .set(bearer(bob))
          .send({ 'quality.incidents': false }),
        403,
      );
    });
  });

  describe('members', () => {
    let space: { slug: string; id: string; name: string };

    beforeEach(async () => {
      space = await createSpace(t.http, alice);
    });

    it('adds, lists, changes and removes members', async () => {
      const add = await t.http
        .post(`${API}/spaces/${space.slug}/members`)
        .set(bearer(alice))
        .send({ user_id: bob.id, role: 'editor' });
      expect(add.status).toBe(201);
      expect(add.body).toEqual({
        user_id: bob.id,
        email: bob.email,
        full_name: 'Bob User',
        role: 'editor',
        direct_role: 'editor',
        granted_by: [{ source: 'direct', role: 'editor' }],
        is_active: true,
        joined_at: expect.stringMatching(/Z$/),
      });
      const list = await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(alice));
      expect(list.body.total).toBe(2);
      expect(list.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([alice.id, bob.id]);

      const change = await t.http
        .patch(`${API}/spaces/${space.slug}/members/${bob.id}`)
        .set(bearer(alice))
        .send({ role: 'viewer' });
      expect(change.status).toBe(200);
      expect(change.body.role).toBe('viewer');
      const audit = await dbQuery<{ action: string; details: Record<string, string> }>(
        `SELECT action, details FROM audit_log WHERE space_id = $1 AND action = 'space.member_role_changed'`,
        [space.id],
      );
      expect(audit).toEqual([
        { action: 'space.member_role_changed', details: { role: 'viewer', previous_role: 'editor' } },
      ]);

      const remove = await t.http.delete(`${API}/spaces/${space.slug}/members/${bob.id}`).set(bearer(alice));
      expect(remove.status).toBe(204);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}`).set(bearer(bob)), 404);
      expectProblem(
        await t.http.delete(`${API}/spaces/${space.slug}/members/${bob.id}`).set(bearer(alice)),
        404,
      );
    });

    it('rejects duplicates (409), unknown users and bad roles (422)', async () => {
      await addMember(t.http, alice, space, bob, 'viewer');
      const dup = await t.http
        .post(`${API}/spaces/${space.slug}/members`)
        .set(bearer(alice))
        .send({ user_id: bob.id, role: 'editor' });
      expectProblem(dup, 409);
      const ghost = await t.http
        .post(`${API}/spaces/${space.slug}/members`)
        .set(bearer(alice))
        .send({ user_id: randomUUID(), role: 'editor' });
      expectProblem(ghost, 422);
      expect(invalidFields(ghost)).toEqual(['user_id']);
      const badRole = await t.http
        .post(`${API}/spaces/${space.slug}/members`)
        .set(bearer(alice))
        .send({ user_id: bob.id, role: 'owner' });
      expectProblem(badRole, 422);
      expect(invalidFields(badRole)).toEqual(['role']);
      const badId = await t.http
        .patch(`${API}/spaces/${space.slug}/members/not-a-uuid`)
        .set(bearer(alice))
        .send({ role: 'viewer' });
      expectProblem(badId, 422);
      expectProblem(
        await t.http
          .patch(`${API}/spaces/${space.slug}/members/${randomUUID()}`)
          .set(bearer(alice))
          .send({ role: 'viewer' }),
        404,
      );
    });

    it('keeps at least one admin (409)', async () => {
      const demote = await t.http
        .patch(`${API}/spaces/${space.slug}/members/${alice.id}`)
        .set(bearer(alice))
        .send({ role: 'editor' });
      expectProblem(demote, 409, /last admin/);
      expectProblem(
        await t.http.delete(`${API}/spaces/${space.slug}/members/${alice.id}`).set(bearer(alice)),
        409,
      );

      await addMember(t.http, alice, space, bob, 'admin');
      const ok = await t.http
        .patch(`${API}/spaces/${space.slug}/members/${alice.id}`)
        .set(bearer(alice))
        .send({ role: 'viewer' });
      expect(ok.status).toBe(200);
      expectProblem(
        await t.http.delete(`${API}/spaces/${space.slug}/members/${bob.id}`).set(bearer(bob)),
        409,
      );
    });

    it('is for space admins only', async () => {
      await addMember(t.http, alice, space, bob, 'editor');
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(bob)), 403);
      const stranger = await createUser(t.http);
      expectProblem(
        await t.http
          .post(`${API}/spaces/${space.slug}/members`)
          .set(bearer(bob))
          .send({ user_id: stranger.id, role: 'viewer' }),
        403,
      );
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}/members`).set(bearer(stranger)), 404);
      const asRoot = await t.http
        .post(`${API}/spaces/${space.slug}/members`)
        .set(bearer(root))
        .send({ user_id: stranger.id, role: 'viewer' });
      expect(asRoot.status).toBe(201);
    });
  });
});
