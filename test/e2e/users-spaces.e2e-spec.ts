import { startApp, TestApp } from '../support/app';
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
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';

describe('users and spaces', () => {
  let t: TestApp;
  let root: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let loner: TestUser;
  let shared: TestSpace;
  let privateSpace: TestSpace;
  let sharedProduct: { id: string; name: string };
  let privateProduct: { id: string; name: string };

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    admin = await createUser(t.http, { first_name: 'Ada', last_name: 'Admin' });
    member = await createUser(t.http, { first_name: 'Max', last_name: 'Member' });
    loner = await createUser(t.http, { first_name: 'Lone', last_name: 'Wolf' });
    shared = await createSpace(t.http, admin, { name: 'Shared space' });
    privateSpace = await createSpace(t.http, member, { name: 'Private space' });
    await addMember(t.http, admin, shared, member, 'editor');
    sharedProduct = await createProduct(t.http, admin, shared, { owner_ids: [member.id] });
    privateProduct = await createProduct(t.http, member, privateSpace, { steward_ids: [member.id] });
  });
  afterAll(() => t.close());

  describe('GET /users/me', () => {
    it('lists my spaces with my role', async () => {
      const res = await t.http.get(`${API}/users/me`).set(bearer(member));
      expect(res.status).toBe(200);
      expect(res.body.spaces).toEqual([
        { id: privateSpace.id, name: 'Private space', slug: privateSpace.slug, role: 'admin' },
        { id: shared.id, name: 'Shared space', slug: shared.slug, role: 'editor' },
      ]);
      const lonely = await t.http.get(`${API}/users/me`).set(bearer(loner));
      expect(lonely.body.spaces).toEqual([]);
    });
  });

  describe('GET /users/{id}', () => {
    it('shows a user who shares a space, with only the shared spaces and roles', async () => {
      const res = await t.http.get(`${API}/users/${member.id}`).set(bearer(admin));
      expect(res.status).toBe(200);
      expect(res.body.spaces).toEqual([{ id: shared.id, name: 'Shared space', role: 'editor' }]);
      expect(res.body.governance_roles).toEqual([
        { product_id: sharedProduct.id, product_name: sharedProduct.name, role: 'owner' },
      ]);
    });

    it('shows everything to the user themself and to a superadmin', async () => {
      for (const viewer of [member, root]) {
        const res = await t.http.get(`${API}/users/${member.id}`).set(bearer(viewer));
        expect(res.status).toBe(200);
        expect(res.body.spaces.map((s: { id: string }) => s.id)).toEqual([privateSpace.id, shared.id]);
        expect(res.body.governance_roles).toEqual(
          expect.arrayContaining([
            { product_id: sharedProduct.id, product_name: sharedProduct.name, role: 'owner' },
            { product_id: privateProduct.id, product_name: privateProduct.name, role: 'steward' },
          ]),
        );
      }
    });

    it('answers 404 to users who share no space', async () => {
      expectProblem(await t.http.get(`${API}/users/${member.id}`).set(bearer(loner)), 404);
      expectProblem(await t.http.get(`${API}/users/${loner.id}`).set(bearer(admin)), 404);
    });
  });

  describe('GET /users', () => {
    it('lets a superadmin list everyone, with spaces_count and filters', async () => {
      const res = await t.http
        .get(`${API}/users?search=${encodeURIComponent(member.email)}`)
        .set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [
          {
            id: member.id,
            email: member.email,
            name: 'Max Member',
            is_active: true,
            spaces_count: 2,
            last_login: expect.stringMatching(/Z$/),
          },
        ],
        total: 1,
        page: 1,
        size: 50,
      });
      const inSpace = await t.http.get(`${API}/users?space_id=${shared.id}`).set(bearer(root));
      expect(inSpace.body.items.map((u: { id: string }) => u.id)).toEqual([admin.id, member.id]);
      const editors = await t.http.get(`${API}/users?space_id=${shared.id}&role=editor`).set(bearer(root));
      expect(editors.body.items.map((u: { id: string }) => u.id)).toEqual([member.id]);
      const page2 = await t.http.get(`${API}/users?space_id=${shared.id}&page=2&size=1`).set(bearer(root));
      expect(page2.body).toEqual(expect.objectContaining({ total: 2, page: 2, size: 1 }));
      expect(page2.body.items.map((u: { id: string }) => u.id)).toEqual([member.id]);
    });

    it('lets a space admin list the members of a space they administer', async () => {
      const res = await t.http.get(`${API}/users?space_id=${shared.id}`).set(bearer(admin));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.items.find((u: { id: string }) => u.id === member.id).spaces_count).toBe(2);
    });

    it('answers 403 to everyone else', async () => {
      expectProblem(await t.http.get(`${API}/users`).set(bearer(admin)), 403);
      // member is only an editor of the shared space
      expectProblem(await t.http.get(`${API}/users?space_id=${shared.id}`).set(bearer(member)), 403);
      expectProblem(await t.http.get(`${API}/users?space_id=${privateSpace.id}`).set(bearer(admin)), 403);
      expectProblem(await t.http.get(`${API}/users`).set(bearer(loner)), 403);
    });
  });

  describe('GET /users/search', () => {
    const search = (user: TestUser, query: string) =>
      t.http.get(`${API}/users/search${query}`).set(bearer(user));

    it('finds users who share a space with the caller', async () => {
      const res = await search(admin, '?q=Max Member');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { id: member.id, name: 'Max Member', email: member.email, avatar_url: null },
      ]);
      expect(await search(admin, `?q=${encodeURIComponent(loner.email)}`).then((r) => r.body)).toEqual([]);
      expect((await search(loner, `?q=${encodeURIComponent(member.email)}`)).body).toEqual([]);
    });

    it('finds the members of space_id when the caller belongs to it', async () => {
      const res = await search(member, `?space_id=${shared.id}`);
      expect(res.body.map((u: { id: string }) => u.id).sort()).toEqual([admin.id, member.id].sort());
      expectProblem(await search(loner, `?space_id=${shared.id}`), 404);
    });

    it('finds everyone for a superadmin', async () => {
      const res = await search(root, `?q=${encodeURIComponent(loner.email)}`);
      expect(res.body.map((u: { id: string }) => u.id)).toEqual([loner.id]);
    });
  });
});
