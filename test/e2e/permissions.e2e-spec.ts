import { randomUUID } from 'node:crypto';
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
  uniqueEmail,
} from '../support/factories';
import { expectProblem } from '../support/problem';

const API = '/api/v1.0';

interface Doc {
  version: number;
  exported_at: string;
  superadmins: string[];
  spaces: {
    slug: string;
    name: string;
    features: Record<string, boolean>;
    members: { email: string; role: string }[];
  }[];
  product_roles: { space: string; product: string; email: string; role: string }[];
}

describe('permissions export and import', () => {
  let t: TestApp;
  let root: TestUser;
  let owner: TestUser;
  let editor: TestUser;
  let newcomer: TestUser;
  let space: TestSpace;
  let product: { id: string; name: string };

  const exportDoc = async (): Promise<Doc> => {
    const res = await t.http.get(`${API}/admin/permissions/export`).set(bearer(root));
    expect(res.status).toBe(200);
    return res.body;
  };
  const importDoc = (document: unknown, mode: 'merge' | 'replace', dryRun = false) =>
    t.http
      .post(`${API}/admin/permissions/import`)
      .set(bearer(root))
      .send({ document, mode, dry_run: dryRun });
  const membersOf = async (s: TestSpace) => {
    const res = await t.http.get(`${API}/spaces/${s.slug}/members`).set(bearer(root));
    return Object.fromEntries(res.body.items.map((m: { email: string; role: string }) => [m.email, m.role]));
  };
  const rolesOf = (productId: string) =>
    dbQuery<{ email: string; role: string }>(
      `SELECT u.email, r.role FROM product_roles r JOIN users u ON u.id = r.user_id WHERE r.product_id = $1 ORDER BY 1, 2`,
      [productId],
    );

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    owner = await createUser(t.http);
    editor = await createUser(t.http);
    newcomer = await createUser(t.http);
    space = await createSpace(t.http, owner);
    await addMember(t.http, owner, space, editor, 'editor');
    product = await createProduct(t.http, owner, space, { owner_ids: [owner.id] });
  });
  afterAll(() => t.close());

  it('exports superadmins, spaces with members and product roles by email, slug and product name', async () => {
    const doc = await exportDoc();
    expect(doc.version).toBe(1);
    expect(doc.exported_at).toMatch(/Z$/);
    expect(doc.superadmins).toContain(root.email);
    const mine = doc.spaces.find((s) => s.slug === space.slug)!;
    expect(mine).toEqual({
      slug: space.slug,
      name: space.name,
      features: expect.any(Object),
      members: [
        { email: owner.email, role: 'admin' },
        { email: editor.email, role: 'editor' },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    });
    expect(doc.product_roles).toContainEqual({
      space: space.slug,
      product: product.name,
      email: owner.email,
      role: 'owner',
    });
  });

  it('is for superadmins only', async () => {
    expectProblem(await t.http.get(`${API}/admin/permissions/export`).set(bearer(owner)), 403);
    expectProblem(
      await t.http
        .post(`${API}/admin/permissions/import`)
        .set(bearer(owner))
        .send({ document: {}, mode: 'merge' }),
      403,
    );
    expectProblem(await importDoc({}, 'upsert' as 'merge'), 422);
  });

  it('answers 422 listing every bad entry, and changes nothing', async () => {
    const before = await membersOf(space);
    const res = await importDoc(
      {
        superadmins: [`ghost-${randomUUID().slice(0, 6)}@example.test`],
        spaces: [
          {
            slug: space.slug,
            members: [
              { email: newcomer.email, role: 'viewer' },
              { email: newcomer.email, role: 'editor' },
              { email: editor.email, role: 'boss' },
            ],
          },
          { slug: `missing-${randomUUID().slice(0, 6)}`, members: [] },
        ],
        product_roles: [
          { space: space.slug, product: 'no such product', email: owner.email, role: 'owner' },
          { space: space.slug, product: product.name, email: owner.email, role: 'captain' },
        ],
      },
      'replace',
    );
    expectProblem(res, 422, /problems; nothing was changed/);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'document.superadmins[0]',
        'document.spaces[0].members[1].email',
        'document.spaces[0].members[2].role',
        'document.spaces[0].members',
        'document.spaces[1].slug',
        'document.product_roles[0].product',
        'document.product_roles[1].role',
        'document.superadmins',
      ]),
    );
    const messages = res.body.errors.map((e: { message: string }) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/would have no admin/),
        expect.stringMatching(/own superadmin flag/),
      ]),
    );
    expect(await membersOf(space)).toEqual(before);
  });

  it('dry_run answers the changes without making them; merge then adds and updates, audited', async () => {
    const document = {
      superadmins: [],
      spaces: [
        {
          slug: space.slug,
          members: [
            { email: newcomer.email, role: 'viewer' },
            { email: editor.email, role: 'admin' },
          ],
        },
      ],
      product_roles: [{ space: space.slug, product: product.name, email: editor.email, role: 'steward' }],
    };
    const dry = await importDoc(document, 'merge', true);
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      mode: 'merge',
      dry_run: true,
      added: [
        { kind: 'membership', space: space.slug, email: newcomer.email, role: 'viewer' },
        {
          kind: 'product_role',
          space: space.slug,
          product: product.name,
          email: editor.email,
          role: 'steward',
        },
      ],
      updated: [
        {
          kind: 'membership',
          space: space.slug,
          email: editor.email,
          role: 'admin',
          previous_role: 'editor',
        },
      ],
      removed: [],
    });
    expect((await membersOf(space))[newcomer.email]).toBeUndefined();

    const applied = await importDoc(document, 'merge');
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ ...dry.body, dry_run: false });
    expect(await membersOf(space)).toEqual({
      [owner.email]: 'admin',
      [editor.email]: 'admin',
      [newcomer.email]: 'viewer',
    });
    expect(await rolesOf(product.id)).toEqual(
      [
        { email: owner.email, role: 'owner' },
        { email: editor.email, role: 'steward' },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    );
    const audit = await dbQuery<{ actor_id: string; details: { mode: string; added: number } }>(
      `SELECT actor_id, details FROM audit_log WHERE action = 'permissions.imported' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(audit[0]).toEqual(
      expect.objectContaining({
        actor_id: root.id,
        details: expect.objectContaining({ mode: 'merge', added: 2 }),
      }),
    );

    // The same document again changes nothing.
    const again = await importDoc(document, 'merge');
    expect(again.body).toEqual(expect.objectContaining({ added: [], updated: [], removed: [] }));
  });

  it('replace removes what the document does not name in the spaces it lists, and superadmin flags it does not list', async () => {
    const other = await t.http
      .post(`${API}/auth/register`)
      .set(bearer(root))
      .send({ email: uniqueEmail('sa'), password: 'password-123', is_superadmin: true });
    const untouched = await createSpace(t.http, owner);
    const doc = await exportDoc();
    const document = {
      ...doc,
      superadmins: doc.superadmins.filter((e) => e !== other.body.email),
      spaces: [
        {
          slug: space.slug,
          name: space.name,
          features: {},
          members: [{ email: editor.email, role: 'admin' }],
        },
      ],
      product_roles: [{ space: space.slug, product: product.name, email: editor.email, role: 'owner' }],
    };
    const res = await importDoc(document, 'replace');
    expect(res.status).toBe(200);
    expect(res.body.removed).toEqual(
      expect.arrayContaining([
        { kind: 'superadmin', email: other.body.email },
        { kind: 'membership', space: space.slug, email: owner.email, role: 'admin' },
        { kind: 'membership', space: space.slug, email: newcomer.email, role: 'viewer' },
        { kind: 'product_role', space: space.slug, product: product.name, email: owner.email, role: 'owner' },
        {
          kind: 'product_role',
          space: space.slug,
          product: product.name,
          email: editor.email,
          role: 'steward',
        },
      ]),
    );
    expect(await membersOf(space)).toEqual({ [editor.email]: 'admin' });
    expect(await rolesOf(product.id)).toEqual([{ email: editor.email, role: 'owner' }]);
    expect((await membersOf(untouched))[owner.email]).toBe('admin');
    const flagged = await dbQuery<{ is_superadmin: boolean }>(
      `SELECT is_superadmin FROM users WHERE id = $1`,
      [other.body.id],
    );
    expect(flagged[0].is_superadmin).toBe(false);
  });

  it('never removes the last superadmin or the caller’s own flag', async () => {
    const doc = await exportDoc();
    const withoutMe = await importDoc(
      { superadmins: doc.superadmins.filter((e) => e !== root.email) },
      'replace',
    );
    expectProblem(withoutMe, 422);
    expect(withoutMe.body.errors).toContainEqual({
      field: 'document.superadmins',
      message: expect.stringMatching(/own superadmin flag/),
    });
    const nobody = await importDoc({ superadmins: [] }, 'replace');
    expectProblem(nobody, 422);
    expect(nobody.body.errors.map((e: { message: string }) => e.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/no active superadmin/)]),
    );
  });
});
