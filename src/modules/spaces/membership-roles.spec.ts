import { adminsAfter, highestRole, RoleChange } from './membership-roles.queries';

const change = (role: RoleChange['role'], previous: RoleChange['previous_role'], before = 2): RoleChange => ({
  user_id: `u-${Math.random()}`,
  role,
  previous_role: previous,
  admins_before: before,
});

describe('effective roles', () => {
  it('takes the highest role, or null for none', () => {
    expect(highestRole([])).toBeNull();
    expect(highestRole(['viewer'])).toBe('viewer');
    expect(highestRole(['viewer', 'admin', 'editor'])).toBe('admin');
    expect(highestRole(['editor', 'viewer', 'editor'])).toBe('editor');
  });

  it('counts the admins a space keeps after a set of changes', () => {
    expect(adminsAfter([])).toBeNull();
    // A swap in one recomputation keeps one admin.
    expect(adminsAfter([change(null, 'admin', 1), change('admin', null, 1)])).toBe(1);
    expect(adminsAfter([change('viewer', 'admin', 1)])).toBe(0);
    expect(adminsAfter([change(null, 'admin', 2), change('editor', 'viewer', 2)])).toBe(1);
    expect(adminsAfter([change('admin', 'editor', 0)])).toBe(1);
  });
});
