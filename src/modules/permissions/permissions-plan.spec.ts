import {
  CurrentState,
  GroupGrant,
  planImport,
  productRoleKey,
  readDocument,
  SpaceRole,
} from './permissions-plan';

const state = (): CurrentState => ({
  users: new Map([
    ['root@x', { active: true }],
    ['sa2@x', { active: true }],
    ['ann@x', { active: true }],
    ['bob@x', { active: true }],
    ['cid@x', { active: false }],
  ]),
  superadmins: new Set(['root@x', 'sa2@x']),
  spaces: new Map([
    [
      'fin',
      {
        members: new Map<string, SpaceRole>([
          ['ann@x', 'admin'],
          ['bob@x', 'viewer'],
        ]),
        products: new Set(['orders']),
      },
    ],
  ]),
  productRoles: new Set([productRoleKey('fin', 'orders', 'ann@x', 'owner')]),
});

const plan = (raw: unknown, mode: 'merge' | 'replace' = 'merge', caller = 'root@x', current = state()) => {
  const read = readDocument(raw);
  const result = planImport(read.document, current, mode, caller);
  return { errors: [...read.errors, ...result.errors], plan: result.plan };
};

// fin with SCIM group grants: ann and bob are in the group "Fin editors" (editor), dan only through it.
const withGroups = (): CurrentState => {
  const current = state();
  current.users.set('dan@x', { active: true });
  const fin = current.spaces.get('fin')!;
  fin.groupGrants = new Map<string, GroupGrant[]>([
    ['ann@x', [{ group: 'Fin editors', role: 'editor' }]],
    ['bob@x', [{ group: 'Fin editors', role: 'editor' }]],
    ['dan@x', [{ group: 'Fin editors', role: 'editor' }]],
  ]);
  return current;
};

describe('permissions import plan', () => {
  it('merge adds and updates only', () => {
    const { errors, plan: p } = plan({
      superadmins: ['ANN@x'],
      spaces: [{ slug: 'fin', members: [{ email: 'bob@x', role: 'editor' }] }],
      product_roles: [{ space: 'fin', product: 'orders', email: 'bob@x', role: 'steward' }],
    });
    expect(errors).toEqual([]);
    expect(p).toEqual({
      added: [
        { kind: 'superadmin', email: 'ann@x' },
        { kind: 'product_role', space: 'fin', product: 'orders', email: 'bob@x', role: 'steward' },
      ],
      updated: [
        { kind: 'membership', space: 'fin', email: 'bob@x', role: 'editor', previous_role: 'viewer' },
      ],
      removed: [],
    });
  });

  it('replace also removes what the listed spaces and the superadmin list leave out', () => {
    const { errors, plan: p } = plan(
      { superadmins: ['root@x'], spaces: [{ slug: 'fin', members: [{ email: 'bob@x', role: 'admin' }] }] },
      'replace',
    );
    expect(errors).toEqual([]);
    expect(p.removed).toEqual([
      { kind: 'superadmin', email: 'sa2@x' },
      { kind: 'membership', space: 'fin', email: 'ann@x', role: 'admin' },
      { kind: 'product_role', space: 'fin', product: 'orders', email: 'ann@x', role: 'owner' },
    ]);
    expect(p.updated).toEqual([
      { kind: 'membership', space: 'fin', email: 'bob@x', role: 'admin', previous_role: 'viewer' },
    ]);
  });

  it('replace leaves spaces the document does not list alone', () => {
    const { plan: p } = plan({ superadmins: ['root@x', 'sa2@x'] }, 'replace');
    expect(p).toEqual({ added: [], updated: [], removed: [] });
  });

  it('lists every bad entry at once', () => {
    const { errors } = plan(
      {
        superadmins: ['ghost@x', 'not-an-email'],
        spaces: [
          {
            slug: 'fin',
            members: [
              { email: 'bob@x', role: 'viewer' },
              { email: 'bob@x', role: 'editor' },
              { email: 'ann@x', role: 'chief' },
            ],
          },
          { slug: 'nope', members: [] },
          { slug: 'fin', members: [] },
        ],
        product_roles: [
          { space: 'fin', product: 'missing', email: 'ann@x', role: 'owner' },
          { space: 'fin', product: 'orders', email: 'cid@x', role: 'steward' },
          { space: 'fin', product: 'orders', email: 'ann@x', role: 'boss' },
        ],
        extra: true,
      },
      'replace',
    );
    expect(errors.map((e) => e.field).sort()).toEqual(
      [
        'document.extra',
        'document.superadmins[0]',
        'document.superadmins[1]',
        'document.spaces[0].members[1].email',
        'document.spaces[0].members[2].role',
        'document.spaces[0].members',
        'document.spaces[1].slug',
        'document.spaces[2].slug',
        'document.product_roles[0].product',
        'document.product_roles[1].email',
        'document.product_roles[2].role',
        'document.superadmins',
        'document.superadmins',
      ].sort(),
    );
  });

  it('refuses removing the caller’s own flag and leaving no active superadmin', () => {
    expect(plan({ superadmins: ['sa2@x'] }, 'replace').errors).toEqual([
      { field: 'document.superadmins', message: expect.stringMatching(/own superadmin flag/) },
    ]);
    expect(plan({ superadmins: ['cid@x'] }, 'replace', 'cid@x').errors).toEqual([
      { field: 'document.superadmins', message: expect.stringMatching(/no active superadmin/) },
    ]);
  });

  it('checks the admin rule on the merged result in merge mode', () => {
    expect(plan({ spaces: [{ slug: 'fin', members: [{ email: 'ann@x', role: 'viewer' }] }] }).errors).toEqual(
      [{ field: 'document.spaces[0].members', message: 'The space fin would have no admin.' }],
    );
    expect(plan({ spaces: [{ slug: 'fin', members: [{ email: 'bob@x', role: 'editor' }] }] }).errors).toEqual(
      [],
    );
  });

  it('compares the document with direct grants: members only through groups are neither removed nor reported', () => {
    const { errors, plan: p } = plan(
      {
        superadmins: ['root@x', 'sa2@x'],
        spaces: [
          {
            slug: 'fin',
            members: [
              { email: 'root@x', role: 'admin' },
              { email: 'dan@x', role: 'viewer' },
            ],
            group_grants: [{ email: 'dan@x', group: 'Fin editors', role: 'editor' }],
          },
        ],
      },
      'replace',
      'root@x',
      withGroups(),
    );
    expect(errors).toEqual([]);
    expect(p.added).toEqual([
      { kind: 'membership', space: 'fin', email: 'root@x', role: 'admin' },
      {
        kind: 'membership',
        space: 'fin',
        email: 'dan@x',
        role: 'viewer',
        effective_role: 'editor',
        note: 'direct grant viewer added, still editor through group Fin editors',
      },
    ]);
    expect(p.removed).toEqual([
      {
        kind: 'membership',
        space: 'fin',
        email: 'ann@x',
        role: 'admin',
        effective_role: 'editor',
        note: 'direct grant removed, still editor through group Fin editors',
      },
      {
        kind: 'membership',
        space: 'fin',
        email: 'bob@x',
        role: 'viewer',
        effective_role: 'editor',
        note: 'direct grant removed, still editor through group Fin editors',
      },
      { kind: 'product_role', space: 'fin', product: 'orders', email: 'ann@x', role: 'owner' },
    ]);
  });

  it('describes a direct grant at or above the group role, and merges without touching group-only members', () => {
    const { errors, plan: p } = plan(
      { spaces: [{ slug: 'fin', members: [{ email: 'bob@x', role: 'admin' }] }] },
      'merge',
      'root@x',
      withGroups(),
    );
    expect(errors).toEqual([]);
    expect(p).toEqual({
      added: [],
      updated: [
        {
          kind: 'membership',
          space: 'fin',
          email: 'bob@x',
          role: 'admin',
          previous_role: 'viewer',
          effective_role: 'admin',
          note: 'direct grant changed to admin, effective role admin (group Fin editors grants editor)',
        },
      ],
      removed: [],
    });
  });

  it('counts effective roles for the admin rule and product roles', () => {
    const current = withGroups();
    current.spaces.get('fin')!.groupGrants!.set('dan@x', [{ group: 'Fin admins', role: 'admin' }]);
    // Only the group's admin is left: the space keeps an admin, and dan may hold a product role.
    const { errors, plan: p } = plan(
      {
        superadmins: ['root@x', 'sa2@x'],
        spaces: [{ slug: 'fin', members: [] }],
        product_roles: [{ space: 'fin', product: 'orders', email: 'dan@x', role: 'steward' }],
      },
      'replace',
      'root@x',
      current,
    );
    expect(errors).toEqual([]);
    expect(p.added).toEqual([
      { kind: 'product_role', space: 'fin', product: 'orders', email: 'dan@x', role: 'steward' },
    ]);
    // Without group grants the same document leaves no admin.
    expect(
      plan({ spaces: [{ slug: 'fin', members: [] }] }, 'replace', 'root@x', state()).errors,
    ).toContainEqual({
      field: 'document.spaces[0].members',
      message: 'The space fin would have no admin.',
    });
  });
});
