import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import {
  addMember,
  bearer,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('metadata configuration', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let space: TestSpace;
  const config = (collection: string) => `${API}/spaces/${space.slug}/config/${collection}`;

  beforeAll(async () => {
    t = await startApp();
    admin = await createUser(t.http, { first_name: 'Ada' });
    editor = await createUser(t.http, { first_name: 'Ed' });
  });
  beforeEach(async () => {
    space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
  });
  afterAll(() => t.close());

  describe('criticality and sensitivity levels', () => {
    it.each(['criticality-levels', 'sensitivity-levels'])(
      '%s: create, list, patch and soft delete',
      async (c) => {
        const created = await t.http
          .post(config(c))
          .set(bearer(admin))
          .send({ name: 'Tier 1', color: '#FF0000', sort_order: 5, description: 'Top' });
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: expect.any(String),
          name: 'Tier 1',
          color: '#FF0000',
          sort_order: 5,
          description: 'Top',
          created_at: expect.stringMatching(/Z$/),
          updated_at: expect.stringMatching(/Z$/),
        });
        const second = await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Tier 2' });
        expect(second.body).toEqual(
          expect.objectContaining({ color: '#6B7280', sort_order: 6, description: null }),
        );

        const list = await t.http.get(config(c)).set(bearer(admin));
        expect(list.status).toBe(200);
        expect(list.body.map((v: { name: string }) => v.name)).toEqual(['Tier 1', 'Tier 2']);

        const patched = await t.http
          .patch(`${config(c)}/${created.body.id}`)
          .set(bearer(admin))
          .send({ color: '#00ff00' });
        expect(patched.status).toBe(200);
        expect(patched.body).toEqual(
          expect.objectContaining({ name: 'Tier 1', color: '#00ff00', sort_order: 5, description: 'Top' }),
        );

        expect((await t.http.delete(`${config(c)}/${created.body.id}`).set(bearer(admin))).status).toBe(204);
        const after = await t.http.get(config(c)).set(bearer(admin));
        expect(after.body.map((v: { name: string }) => v.name)).toEqual(['Tier 2']);
        expectProblem(await t.http.delete(`${config(c)}/${created.body.id}`).set(bearer(admin)), 404);
        expectProblem(
          await t.http
            .patch(`${config(c)}/${created.body.id}`)
            .set(bearer(admin))
            .send({ name: 'Back' }),
          404,
        );
        expectProblem(await t.http.delete(`${config(c)}/${randomUUID()}`).set(bearer(admin)), 404);
      },
    );

    it('keeps names unique among live values, case-insensitively (409), and frees deleted names', async () => {
      const c = 'criticality-levels';
      const first = await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Gold' });
      expectProblem(await t.http.post(config(c)).set(bearer(admin)).send({ name: 'gold' }), 409);
      const other = await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Silver' });
      expectProblem(
        await t.http
          .patch(`${config(c)}/${other.body.id}`)
          .set(bearer(admin))
          .send({ name: 'GOLD' }),
        409,
      );
      const sameName = await t.http
        .patch(`${config(c)}/${first.body.id}`)
        .set(bearer(admin))
        .send({ name: 'Gold' });
      expect(sameName.status).toBe(200);
      await t.http.delete(`${config(c)}/${first.body.id}`).set(bearer(admin));
      expect((await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Gold' })).status).toBe(201);
      // Another space may use the same name.
      const elsewhere = await createSpace(t.http, admin);
      const there = await t.http
        .post(`${API}/spaces/${elsewhere.slug}/config/${c}`)
        .set(bearer(admin))
        .send({ name: 'Gold' });
      expect(there.status).toBe(201);
    });

    it.each([
      [{ name: 'X', color: 'red' }, 'color'],
      [{ name: 'X', color: '#12345' }, 'color'],
      [{ name: 'X', sort_order: -1 }, 'sort_order'],
      [{ name: 'X', sort_order: 1.5 }, 'sort_order'],
      [{ color: '#123456' }, 'name'],
      [{ name: 'X', slug: 'x' }, 'slug'],
    ])('rejects %p (422)', async (body, field) => {
      const res = await t.http.post(config('sensitivity-levels')).set(bearer(admin)).send(body);
      expectProblem(res, 422);
      expect(invalidFields(res)).toContain(field);
    });

    it('seeds the standard defaults once', async () => {
      const c = 'criticality-levels';
      await t.http.post(config(c)).set(bearer(admin)).send({ name: 'high', color: '#000000', sort_order: 0 });
      const seeded = await t.http.post(`${config(c)}/seed`).set(bearer(admin));
      expect(seeded.status).toBe(200);
      expect(seeded.body.map((v: { name: string }) => v.name)).toEqual(['high', 'Critical', 'Medium', 'Low']);
      const again = await t.http.post(`${config(c)}/seed`).set(bearer(admin));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(seeded.body);

      const sensitivity = await t.http.post(`${config('sensitivity-levels')}/seed`).set(bearer(admin));
      expect(sensitivity.body.map((v: { name: string }) => v.name)).toEqual([
        'Public',
        'Internal',
        'Confidential',
        'Restricted',
      ]);
      expect(sensitivity.body[0]).toEqual(
        expect.objectContaining({ color: expect.stringMatching(/^#[0-9A-F]{6}$/), sort_order: 0 }),
      );
    });
  });

  describe('maintenance statuses', () => {
    it('creates statuses with a snake_case slug, derived when left out', async () => {
      const c = 'maintenance-statuses';
      const derived = await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Being Rebuilt' });
      expect(derived.status).toBe(201);
      expect(derived.body).toEqual({
        id: expect.any(String),
        name: 'Being Rebuilt',
        slug: 'being_rebuilt',
        color: '#6B7280',
        sort_order: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const explicit = await t.http
        .post(config(c))
        .set(bearer(admin))
        .send({ name: 'Frozen', slug: 'on_ice', color: '#111111' });
      expect(explicit.body.slug).toBe('on_ice');
      expectProblem(
        await t.http.post(config(c)).set(bearer(admin)).send({ name: 'Other', slug: 'on_ice' }),
        409,
      );
      const badSlug = await t.http
        .post(config(c))
        .set(bearer(admin))
        .send({ name: 'Bad', slug: 'Not-Snake' });
      expectProblem(badSlug, 422);
      expect(invalidFields(badSlug)).toEqual(['slug']);
      const description = await t.http
        .post(config(c))
        .set(bearer(admin))
        .send({ name: 'D', description: 'x' });
      expectProblem(description, 422);
      const patched = await t.http
        .patch(`${config(c)}/${explicit.body.id}`)
        .set(bearer(admin))
        .send({ slug: 'frozen', sort_order: 9 });
      expect(patched.body).toEqual(
        expect.objectContaining({ name: 'Frozen', slug: 'frozen', sort_order: 9 }),
      );
    });

    it('seeds Active, Deprecated, Retired and Under Maintenance once', async () => {
      const c = 'maintenance-statuses';
      const seeded = await t.http.post(`${config(c)}/seed`).set(bearer(admin));
      expect(seeded.status).toBe(200);
      expect(seeded.body.map((s: { name: string; slug: string }) => [s.name, s.slug])).toEqual([
        ['Active', 'active'],
        ['Deprecated', 'deprecated'],
        ['Retired', 'retired'],
        ['Under Maintenance', 'under_maintenance'],
      ]);
      const again = await t.http.post(`${config(c)}/seed`).set(bearer(admin));
      expect(again.body).toHaveLength(4);
      // A deleted default comes back on the next seed, as a new value.
      await t.http.delete(`${config(c)}/${seeded.body[2].id}`).set(bearer(admin));
      const reseeded = await t.http.post(`${config(c)}/seed`).set(bearer(admin));
      expect(reseeded.body).toHaveLength(4);
      expect(reseeded.body.find((s: { slug: string }) => s.slug === 'retired').id).not.toBe(
        seeded.body[2].id,
      );
    });
  });

  describe('permissions', () => {
    it('keeps the managing endpoints Space Admin only, reads included', async () => {
      for (const c of ['criticality-levels', 'sensitivity-levels', 'maintenance-statuses']) {
        expectProblem(await t.http.get(config(c)).set(bearer(editor)), 403);
        expectProblem(await t.http.post(config(c)).set(bearer(editor)).send({ name: 'X' }), 403);
        expectProblem(await t.http.post(`${config(c)}/seed`).set(bearer(editor)), 403);
        expectProblem(
          await t.http
            .patch(`${config(c)}/${randomUUID()}`)
            .set(bearer(editor))
            .send({}),
          403,
        );
        expectProblem(await t.http.delete(`${config(c)}/${randomUUID()}`).set(bearer(editor)), 403);
      }
      const stranger = await createUser(t.http);
      expectProblem(await t.http.get(config('criticality-levels')).set(bearer(stranger)), 404);
      const root = await rootUser(t.http);
      expect((await t.http.get(config('criticality-levels')).set(bearer(root))).status).toBe(200);
    });

    it('answers 422 for a malformed item id', async () => {
      const res = await t.http.delete(`${config('criticality-levels')}/nope`).set(bearer(admin));
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['level_id']);
    });
  });

  describe('GET /spaces/{slug}/config', () => {
    it('gives any member the live values of all three collections', async () => {
      await t.http.post(`${config('criticality-levels')}/seed`).set(bearer(admin));
      await t.http.post(`${config('maintenance-statuses')}/seed`).set(bearer(admin));
      const gone = await t.http.post(config('sensitivity-levels')).set(bearer(admin)).send({ name: 'Gone' });
      await t.http.post(config('sensitivity-levels')).set(bearer(admin)).send({ name: 'Kept' });
      await t.http.delete(`${config('sensitivity-levels')}/${gone.body.id}`).set(bearer(admin));
      const viewer = await createUser(t.http);
      await addMember(t.http, admin, space, viewer, 'viewer');

      const res = await t.http.get(`${API}/spaces/${space.slug}/config`).set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'criticality_levels',
        'maintenance_statuses',
        'sensitivity_levels',
      ]);
      expect(res.body.criticality_levels.map((v: { name: string }) => v.name)).toEqual([
        'Critical',
        'High',
        'Medium',
        'Low',
      ]);
      expect(res.body.sensitivity_levels.map((v: { name: string }) => v.name)).toEqual(['Kept']);
      expect(res.body.maintenance_statuses.map((v: { slug: string }) => v.slug)).toEqual([
        'active',
        'deprecated',
        'retired',
        'under_maintenance',
      ]);
      const stranger = await createUser(t.http);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}/config`).set(bearer(stranger)), 404);
    });
  });
});
