import type { FieldError } from '../../common/errors/domain-error';

export const DOCUMENT_VERSION = 1;
export const SPACE_ROLES = ['admin', 'editor', 'viewer'] as const;
export const PRODUCT_ROLES = ['owner', 'steward'] as const;
export const IMPORT_MODES = ['merge', 'replace'] as const;
export type SpaceRole = (typeof SPACE_ROLES)[number];
export type ProductRoleName = (typeof PRODUCT_ROLES)[number];
export type ImportMode = (typeof IMPORT_MODES)[number];

/** A permissions document after its shape was checked; `at` is the entry's path, for errors. */
export interface PermissionsDocument {
  superadmins: { email: string; at: string }[];
  spaces: { slug: string; at: string; members: { email: string; role: SpaceRole; at: string }[] }[];
  productRoles: { space: string; product: string; email: string; role: ProductRoleName; at: string }[];
}

/** What the database holds of the users, spaces and products a document names. */
export interface CurrentState {
  /** Known users by (lowercased) email. */
  users: Map<string, { active: boolean }>;
  /** Emails of the current superadmins. */
  superadmins: Set<string>;
  /**
   * Existing spaces the document names, by slug: the direct grants by email
   * (what a document lists), the roles mapped SCIM groups grant by email
   * (read-only here; none when left out), product names.
   */
  spaces: Map<
    string,
    { members: Map<string, SpaceRole>; groupGrants?: Map<string, GroupGrant[]>; products: Set<string> }
  >;
  /** Current product roles in those spaces, as `productRoleKey`s. */
  productRoles: Set<string>;
}

/** A role a mapped SCIM group grants a member in a space. */
export interface GroupGrant {
  group: string;
  role: SpaceRole;
}

export interface Change {
  kind: 'superadmin' | 'membership' | 'product_role';
  email: string;
  space?: string;
  product?: string;
  /** Memberships: the direct grant set, or (removed) the one cleared. */
  role?: string;
  previous_role?: string;
  /** Memberships of users SCIM groups grant a role in the space: their role after the import. */
  effective_role?: string;
  /** Memberships of those users: the outcome in words, e.g. `direct grant removed, still editor through group X`. */
  note?: string;
}

export interface Plan {
  added: Change[];
  updated: Change[];
  removed: Change[];
}

export const productRoleKey = (space: string, product: string, email: string, role: string) =>
  JSON.stringify([space, product, email, role]);

const KEYS = {
  document: ['version', 'exported_at', 'superadmins', 'spaces', 'product_roles'],
  // `name`, `features` and `group_grants` are exported for reference and ignored.
  space: ['slug', 'name', 'features', 'members', 'group_grants'],
  member: ['email', 'role'],
  productRole: ['space', 'product', 'email', 'role'],
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** Checks the document's shape; entries with errors are left out of the result, every error is listed. */
export function readDocument(raw: unknown): { document: PermissionsDocument; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const document: PermissionsDocument = { superadmins: [], spaces: [], productRoles: [] };
  const error = (field: string, message: string) => errors.push({ field, message });
  const unknownKeys = (value: Record<string, unknown>, allowed: string[], at: string) => {
    for (const key of Object.keys(value))
      if (!allowed.includes(key)) error(`${at}.${key}`, `${key} is not a field of this entry.`);
  };
  const email = (value: unknown, at: string): string | null => {
    if (typeof value !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(value.trim())) {
      error(at, 'must be an email address.');
      return null;
    }
    return value.trim().toLowerCase();
  };
  const list = (value: unknown, at: string): unknown[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      error(at, 'must be a list.');
      return [];
    }
    return value;
  };
  if (!isObject(raw)) {
    error('document', 'must be a permissions document (an object).');
    return { document, errors };
  }
  unknownKeys(raw, KEYS.document, 'document');
  if (raw.version !== undefined && raw.version !== DOCUMENT_VERSION) {
    error('document.version', `must be ${DOCUMENT_VERSION}.`);
  }
  list(raw.superadmins, 'document.superadmins').forEach((value, i) => {
    const at = `document.superadmins[${i}]`;
    const address = email(value, at);
    if (address) document.superadmins.push({ email: address, at });
  });
  list(raw.spaces, 'document.spaces').forEach((value, i) => {
    const at = `document.spaces[${i}]`;
    if (!isObject(value)) return error(at, 'must be an object.');
    unknownKeys(value, KEYS.space, at);
    if (typeof value.slug !== 'string' || !value.slug) return error(`${at}.slug`, 'is required.');
    const members: PermissionsDocument['spaces'][number]['members'] = [];
    list(value.members, `${at}.members`).forEach((member, j) => {
      const memberAt = `${at}.members[${j}]`;
      if (!isObject(member)) return error(memberAt, 'must be an object.');
      unknownKeys(member, KEYS.member, memberAt);
      const address = email(member.email, `${memberAt}.email`);
      const role = member.role as SpaceRole;
      if (!SPACE_ROLES.includes(role)) error(`${memberAt}.role`, `must be one of ${SPACE_ROLES.join(', ')}.`);
      else if (address) members.push({ email: address, role, at: memberAt });
    });
    document.spaces.push({ slug: value.slug, at, members });
  });
  list(raw.product_roles, 'document.product_roles').forEach((value, i) => {
    const at = `document.product_roles[${i}]`;
    if (!isObject(value)) return error(at, 'must be an object.');
    unknownKeys(value, KEYS.productRole, at);
    const address = email(value.email, `${at}.email`);
    const role = value.role as ProductRoleName;
    let ok = !!address;
    if (!PRODUCT_ROLES.includes(role)) {
      error(`${at}.role`, `must be one of ${PRODUCT_ROLES.join(', ')}.`);
      ok = false;
    }
    for (const key of ['space', 'product'] as const) {
      if (typeof value[key] !== 'string' || !value[key]) {
        error(`${at}.${key}`, 'is required.');
        ok = false;
      }
    }
    if (ok) {
      document.productRoles.push({
        space: value.space as string,
        product: value.product as string,
        email: address!,
        role,
        at,
      });
    }
  });
  return { document, errors };
}

/**
 * Validates a document against the current state and works out the changes.
 * `replace` applies to what the document names: the superadmin list, the
 * members and product roles of the spaces it lists; other spaces stay as they are.
 */
export function planImport(
  document: PermissionsDocument,
  state: CurrentState,
  mode: ImportMode,
  callerEmail: string,
): { errors: FieldError[]; plan: Plan } {
  const errors: FieldError[] = [];
  const plan: Plan = { added: [], updated: [], removed: [] };
  const error = (field: string, message: string) => errors.push({ field, message });
  const known = (address: string, at: string) => {
    if (state.users.has(address)) return true;
    error(at, `No user has the email ${address}.`);
    return false;
  };

  // Superadmins.
  const wantedAdmins = new Set<string>();
  for (const { email, at } of document.superadmins) {
    if (wantedAdmins.has(email)) error(at, `${email} is listed twice.`);
    else if (known(email, at)) wantedAdmins.add(email);
  }
  for (const email of wantedAdmins) {
    if (!state.superadmins.has(email)) plan.added.push({ kind: 'superadmin', email });
  }
  if (mode === 'replace') {
    for (const email of state.superadmins) {
      if (!wantedAdmins.has(email)) plan.removed.push({ kind: 'superadmin', email });
    }
    if (!wantedAdmins.has(callerEmail)) {
      error('document.superadmins', 'The document would remove your own superadmin flag: list yourself.');
    }
    if (![...wantedAdmins].some((email) => state.users.get(email)?.active)) {
      error('document.superadmins', 'The document would leave no active superadmin.');
    }
  }

  // Space memberships. The document lists direct grants; the final effective
  // roles of each space (with the SCIM group grants, which an import never
  // changes) serve the admin rule and the product roles.
  const finalMembers = new Map<string, Map<string, SpaceRole>>();
  for (const [slug, space] of state.spaces) {
    finalMembers.set(slug, effectiveRoles(space.members, space.groupGrants));
  }
  const namedSpaces = new Set<string>();
  for (const entry of document.spaces) {
    if (namedSpaces.has(entry.slug)) {
      error(`${entry.at}.slug`, `The space ${entry.slug} is listed twice.`);
      continue;
    }
    namedSpaces.add(entry.slug);
    const space = state.spaces.get(entry.slug);
    if (!space) {
      error(`${entry.at}.slug`, `No space has the slug ${entry.slug}.`);
      continue;
    }
    const wanted = new Map<string, SpaceRole>();
    for (const member of entry.members) {
      if (wanted.has(member.email))
        error(`${member.at}.email`, `${member.email} is listed twice in ${entry.slug}.`);
      else if (known(member.email, `${member.at}.email`)) wanted.set(member.email, member.role);
    }
    const direct = mode === 'replace' ? new Map(wanted) : new Map([...space.members, ...wanted]);
    const final = effectiveRoles(direct, space.groupGrants);
    finalMembers.set(entry.slug, final);
    if (![...final.values()].includes('admin')) {
      error(`${entry.at}.members`, `The space ${entry.slug} would have no admin.`);
    }
    const withGroups = (change: Change): Change => {
      const grants = space.groupGrants?.get(change.email);
      if (!grants?.length) return change;
      const effective = final.get(change.email)!;
      return {
        ...change,
        effective_role: effective,
        note: outcome(change, direct.get(change.email) ?? null, effective, grants),
      };
    };
    for (const [email, role] of wanted) {
      const previous = space.members.get(email);
      if (!previous) plan.added.push(withGroups({ kind: 'membership', space: entry.slug, email, role }));
      else if (previous !== role) {
        plan.updated.push(
          withGroups({ kind: 'membership', space: entry.slug, email, role, previous_role: previous }),
        );
      }
    }
    if (mode === 'replace') {
      for (const [email, role] of space.members) {
        if (!wanted.has(email)) {
          plan.removed.push(withGroups({ kind: 'membership', space: entry.slug, email, role }));
        }
      }
    }
  }

  // Product roles.
  const wantedRoles = new Set<string>();
  for (const entry of document.productRoles) {
    const key = productRoleKey(entry.space, entry.product, entry.email, entry.role);
    if (wantedRoles.has(key)) {
      error(entry.at, 'This product role is listed twice.');
      continue;
    }
    const space = state.spaces.get(entry.space);
    if (!space) {
      error(`${entry.at}.space`, `No space has the slug ${entry.space}.`);
      continue;
    }
    if (!space.products.has(entry.product)) {
      error(`${entry.at}.product`, `The space ${entry.space} has no product named ${entry.product}.`);
      continue;
    }
    if (!known(entry.email, `${entry.at}.email`)) continue;
    if (!finalMembers.get(entry.space)?.has(entry.email)) {
      error(`${entry.at}.email`, `${entry.email} would not be a member of ${entry.space}.`);
      continue;
    }
    wantedRoles.add(key);
    if (!state.productRoles.has(key)) {
      plan.added.push({
        kind: 'product_role',
        space: entry.space,
        product: entry.product,
        email: entry.email,
        role: entry.role,
      });
    }
  }
  if (mode === 'replace') {
    for (const key of state.productRoles) {
      const [space, product, email, role] = JSON.parse(key) as string[];
      if (namedSpaces.has(space) && !wantedRoles.has(key)) {
        plan.removed.push({ kind: 'product_role', space, product, email, role });
      }
    }
  }
  return { errors, plan };
}

const RANK: Record<SpaceRole, number> = { viewer: 1, editor: 2, admin: 3 };

/** The effective role of each member: the highest of the direct grant and the group grants. */
function effectiveRoles(
  direct: Map<string, SpaceRole>,
  groupGrants: Map<string, GroupGrant[]> = new Map(),
): Map<string, SpaceRole> {
  const roles = new Map(direct);
  for (const [email, grants] of groupGrants) {
    for (const { role } of grants) {
      const current = roles.get(email);
      if (!current || RANK[role] > RANK[current]) roles.set(email, role);
    }
  }
  return roles;
}

/** A membership change of a user SCIM groups also grant a role in the space, in words. */
function outcome(
  change: Change,
  direct: SpaceRole | null,
  effective: SpaceRole,
  grants: GroupGrant[],
): string {
  const action = !direct
    ? 'direct grant removed'
    : change.previous_role
      ? `direct grant changed to ${direct}`
      : `direct grant ${direct} added`;
  const best = grants.reduce((top, g) => (RANK[g.role] > RANK[top] ? g.role : top), grants[0].role);
  const groups = grants.filter((g) => g.role === best).map((g) => g.group);
  const through = `${groups.length > 1 ? 'groups' : 'group'} ${groups.join(', ')}`;
  if (!direct || RANK[best] > RANK[direct]) return `${action}, still ${effective} through ${through}`;
  return `${action}, effective role ${effective} (${through} ${groups.length > 1 ? 'grant' : 'grants'} ${best})`;
}
