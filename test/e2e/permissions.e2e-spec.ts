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
import { expectStatus, mapGroup, SCIM, scimToken } from '../support/scim';

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
    group_grants?: { email: string; group: string; role: string }[];
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

  describe('with a SCIM group mapped to a space role', () => {
    interface Member {
      role: string;
      direct_role: string | null;
      granted_by: { source: string; role: string; group_name?: string }[];
    }
    let scim: string;
    let groupName: string;
    let groupId: string;
    let team: TestSpace;
    // grouped: an editor only through the group; both: a direct viewer and in the group; plain: no membership.
    let grouped: TestUser;
    let both: TestUser;
    let plain: TestUser;

    /** The members list over REST: each member's effective role, direct role and grants, by email. */
    const membersView = async (s: TestSpace): Promise<Record<string, Member>> => {
      const res = expectStatus(
        await t.http.get(`${API}/spaces/${s.slug}/members`).query({ limit: 200 }).set(bearer(root)),
        200,
      );
      return Object.fromEntries(
        (res.body.items as (Member & { email: string })[]).map((m) => [
          m.email,
          {
            role: m.role,
            direct_role: m.direct_role,
            granted_by: m.granted_by.map((g) => ({
              source: g.source,
              role: g.role,
              ...(g.group_name ? { group_name: g.group_name } : {}),
            })),
          },
        ]),
      );
    };
    const direct = (role: string) => ({ source: 'direct', role });
    const viaGroup = (role: string) => ({ source: 'scim_group', role, group_name: groupName });
    // A replace lists the superadmins too (it would drop the flags it leaves out).
    const teamDocument = async (members: { email: string; role: string }[], space: TestSpace = team) => ({
      superadmins: (await exportDoc()).superadmins,
      spaces: [{ slug: space.slug, members }],
    });

    beforeAll(async () => {
      scim = await scimToken(t.http, root, 'Permissions import');
      grouped = await createUser(t.http);
      both = await createUser(t.http);
      plain = await createUser(t.http);
      team = await createSpace(t.http, owner);
      await addMember(t.http, owner, team, both, 'viewer');
      groupName = `Analysts ${randomUUID().slice(0, 8)}`;
      const group = await t.http
        .post(`${SCIM}/Groups`)
        .set({ Authorization: `Bearer ${scim}` })
        .send({ displayName: groupName, members: [{ value: grouped.id }, { value: both.id }] });
      groupId = expectStatus(group, 201).body.id;
      await mapGroup(t.http, root, groupId, team, 'editor');
    });

    it('exports the direct grants as members and the group grants read-only; importing the export changes nothing', async () => {
      const doc = await exportDoc();
      const mine = doc.spaces.find((s) => s.slug === team.slug)!;
      expect(mine.members).toEqual(
        [
          { email: owner.email, role: 'admin' },
          { email: both.email, role: 'viewer' },
        ].sort((a, b) => a.email.localeCompare(b.email)),
      );
      expect(mine.group_grants).toEqual(
        [
          { email: grouped.email, group: groupName, role: 'editor' },
          { email: both.email, group: groupName, role: 'editor' },
        ].sort((a, b) => a.email.localeCompare(b.email)),
      );
      const document = { ...doc, spaces: [mine], product_roles: [] };
      for (const mode of ['merge', 'replace'] as const) {
        const res = await importDoc(document, mode);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ mode, dry_run: false, added: [], updated: [], removed: [] });
      }
      expect(await membersView(team)).toEqual({
        [owner.email]: { role: 'admin', direct_role: 'admin', granted_by: [direct('admin')] },
        [grouped.email]: { role: 'editor', direct_role: null, granted_by: [viaGroup('editor')] },
        [both.email]: {
          role: 'editor',
          direct_role: 'viewer',
          granted_by: [direct('viewer'), viaGroup('editor')],
        },
      });
    });

    it('merge sets direct grants beside the group roles and reports the effective roles', async () => {
      const document = await teamDocument([
        { email: grouped.email, role: 'viewer' },
        { email: both.email, role: 'admin' },
        { email: plain.email, role: 'viewer' },
      ]);
      const dry = await importDoc(document, 'merge', true);
      expect(dry.status).toBe(200);
      expect(dry.body).toEqual({
        mode: 'merge',
        dry_run: true,
        added: [
          {
            kind: 'membership',
            space: team.slug,
            email: grouped.email,
            role: 'viewer',
            effective_role: 'editor',
            note: `direct grant viewer added, still editor through group ${groupName}`,
          },
          { kind: 'membership', space: team.slug, email: plain.email, role: 'viewer' },
        ],
        updated: [
          {
            kind: 'membership',
            space: team.slug,
            email: both.email,
            role: 'admin',
            previous_role: 'viewer',
            effective_role: 'admin',
            note: `direct grant changed to admin, effective role admin (group ${groupName} grants editor)`,
          },
        ],
        removed: [],
      });
      expect((await membersView(team))[grouped.email].direct_role).toBeNull();

      const applied = await importDoc(document, 'merge');
      expect(applied.status).toBe(200);
      expect(applied.body).toEqual({ ...dry.body, dry_run: false });
      expect(await membersView(team)).toEqual({
        [owner.email]: { role: 'admin', direct_role: 'admin', granted_by: [direct('admin')] },
        [grouped.email]: {
          role: 'editor',
          direct_role: 'viewer',
          granted_by: [direct('viewer'), viaGroup('editor')],
        },
        [both.email]: {
          role: 'admin',
          direct_role: 'admin',
          granted_by: [direct('admin'), viaGroup('editor')],
        },
        [plain.email]: { role: 'viewer', direct_role: 'viewer', granted_by: [direct('viewer')] },
      });
      // The membership events name the import; grouped's effective role did not change, so none for them.
      const audit = await dbQuery<{ action: string; resource_id: string; details: { reason?: string } }>(
        `SELECT action, resource_id, details FROM audit_log
          WHERE space_id = $1 AND action LIKE 'space.member_%' AND details->>'reason' = 'permissions.imported'
          ORDER BY resource_id`,
        [team.id],
      );
      expect(audit.map((a) => [a.action, a.resource_id]).sort()).toEqual(
        [
          ['space.member_added', plain.id],
          ['space.member_role_changed', both.id],
        ].sort(),
      );
    });

    it('replace clears the direct grants it does not name; members whom the group still grants a role stay', async () => {
      const document = await teamDocument([{ email: owner.email, role: 'admin' }]);
      const dry = await importDoc(document, 'replace', true);
      expect(dry.status).toBe(200);
      const removed = [
        {
          kind: 'membership',
          space: team.slug,
          email: grouped.email,
          role: 'viewer',
          effective_role: 'editor',
          note: `direct grant removed, still editor through group ${groupName}`,
        },
        {
          kind: 'membership',
          space: team.slug,
          email: both.email,
          role: 'admin',
          effective_role: 'editor',
          note: `direct grant removed, still editor through group ${groupName}`,
        },
        { kind: 'membership', space: team.slug, email: plain.email, role: 'viewer' },
      ];
      // Changes come in the order of the user ids.
      const byEmail = (a: { email: string }, b: { email: string }) => a.email.localeCompare(b.email);
      expect({ ...dry.body, removed: [...dry.body.removed].sort(byEmail) }).toEqual({
        mode: 'replace',
        dry_run: true,
        added: [],
        updated: [],
        removed: removed.sort(byEmail),
      });

      const applied = await importDoc(document, 'replace');
      expect(applied.status).toBe(200);
      expect(applied.body).toEqual({ ...dry.body, dry_run: false });
      expect(await membersView(team)).toEqual({
        [owner.email]: { role: 'admin', direct_role: 'admin', granted_by: [direct('admin')] },
        [grouped.email]: { role: 'editor', direct_role: null, granted_by: [viaGroup('editor')] },
        [both.email]: { role: 'editor', direct_role: null, granted_by: [viaGroup('editor')] },
      });

      // Members only through the group are not the document's to remove: the same replace changes nothing.
      const again = await importDoc(document, 'replace');
      expect(again.body).toEqual({ mode: 'replace', dry_run: false, added: [], updated: [], removed: [] });
      expect(Object.keys(await membersView(team)).sort()).toEqual(
        [owner.email, grouped.email, both.email].sort(),
      );
    });

    it('counts the admins a group grants for the admin rule', async () => {
      // The group grants editor here: removing the only direct admin leaves no admin.
      const refused = await importDoc(await teamDocument([]), 'replace');
      expectProblem(refused, 422);
      expect(refused.body.errors).toContainEqual({
        field: 'document.spaces[0].members',
        message: `The space ${team.slug} would have no admin.`,
      });
      expect((await membersView(team))[owner.email].direct_role).toBe('admin');

      // Where the group grants admin, the direct admin can go: the group's members remain admins.
      const led = await createSpace(t.http, owner);
      await mapGroup(t.http, root, groupId, led, 'admin');
      const res = await importDoc(await teamDocument([], led), 'replace');
      expect(res.status).toBe(200);
      expect(res.body.removed).toEqual([
        { kind: 'membership', space: led.slug, email: owner.email, role: 'admin' },
      ]);
      expect(await membersView(led)).toEqual({
        [grouped.email]: { role: 'admin', direct_role: null, granted_by: [viaGroup('admin')] },
        [both.email]: { role: 'admin', direct_role: null, granted_by: [viaGroup('admin')] },
      });
    });
  });
});
