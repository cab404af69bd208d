import { parseFilter, FilterNode } from './scim-filter';
import { ScimError } from './scim.errors';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export type PatchVerb = 'add' | 'replace' | 'remove';

export interface PatchOperation {
  op: PatchVerb;
  path?: string;
  value?: unknown;
}

/** The enterprise extension's attributes Verity keeps (RFC 7643 §4.3). */
export const ENTERPRISE_ATTRIBUTES = [
  'employeeNumber',
  'costCenter',
  'organization',
  'division',
  'department',
  'manager',
] as const;

/** What Verity keeps of a SCIM user. */
export interface ScimUserState {
  /** The identity provider's login name, as sent. */
  userName: string;
  /** The account email (mail, sign-in, SSO matching): the work email. */
  email: string;
  externalId: string | null;
  givenName: string;
  familyName: string;
  active: boolean;
  enterprise: Record<string, unknown>;
}

/** What Verity keeps of a SCIM group. */
export interface ScimGroupState {
  displayName: string;
  externalId: string | null;
  members: string[];
}

const MAX_OPERATIONS = 1000;
const PATH_SYNTAX = /^[A-Za-z0-9:._$-]+(\[[^\]]+\])?(\.[A-Za-z0-9_$-]+)?$/;

const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath');

/** `active` as identity providers send it: a boolean, or the strings "True"/"False" in any case (Entra). */
export function parseActive(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true') return true;
    if (lowered === 'false') return false;
  }
  throw invalidValue('"active" must be true or false.');
}

/** Validates a PatchOp body; `op` is case-insensitive (Entra sends "Replace"). */
export function parsePatchBody(body: unknown): PatchOperation[] {
  const record = (body ?? {}) as Record<string, unknown>;
  const schemas = record.schemas;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP_SCHEMA)) {
    throw invalidValue(`A PATCH body must name the schema ${PATCH_OP_SCHEMA}.`);
  }
  const operations = record.Operations ?? record.operations;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidValue('A PATCH body needs a non-empty "Operations" list.');
  }
  if (operations.length > MAX_OPERATIONS) {
    throw new ScimError(400, `At most ${MAX_OPERATIONS} operations per request.`, 'tooMany');
  }
  return operations.map((raw, index) => {
    const operation = (raw ?? {}) as Record<string, unknown>;
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw invalidValue(`Operation ${index + 1}: "op" must be add, replace or remove.`);
    }
    const path = operation.path;
    if (path !== undefined && path !== null && (typeof path !== 'string' || !PATH_SYNTAX.test(path.trim()))) {
      throw invalidPath(`Operation ${index + 1}: "${String(path)}" is not an attribute path.`);
    }
    const trimmed = typeof path === 'string' && path.trim() ? path.trim() : undefined;
    if (op !== 'remove' && operation.value === undefined) {
      throw invalidValue(`Operation ${index + 1}: "${op}" needs a value.`);
    }
    if (op === 'remove' && !trimmed) {
      throw new ScimError(400, `Operation ${index + 1}: "remove" needs a path.`, 'noTarget');
    }
    return { op, path: trimmed, value: operation.value };
  });
}

/** Drops a core schema URN from a path: `urn:...:core:2.0:User:name.givenName` → `name.givenName`. */
function localPath(path: string, schema: string): string {
  return path.toLowerCase().startsWith(`${schema.toLowerCase()}:`) ? path.slice(schema.length + 1) : path;
}

function requireString(value: unknown, attr: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && !value.trim())) {
    throw invalidValue(`"${attr}" must be a ${allowEmpty ? '' : 'non-empty '}string.`);
  }
  return value.trim();
}

/** A trimmed email address; 400 invalidValue for anything else. */
export function requireEmail(value: unknown): string {
  const email = requireString(value, 'emails.value');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidValue(`"${email}" is not an email address.`);
  return email;
}

/** The address among `emails` that Verity keeps: the work one, else the primary one, else the first. */
export function pickEmail(value: unknown): string | undefined {
  const list = (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown> | null>;
  const entries = list.filter((e): e is Record<string, unknown> => !!e && typeof e.value === 'string');
  // Entra maps `mail` to the work email and may mark none primary; Okta marks its one address primary.
  const chosen =
    entries.find((e) => typeof e.type === 'string' && e.type.toLowerCase() === 'work') ??
    entries.find((e) => e.primary === true || e.primary === 'true' || e.primary === 'True') ??
    entries[0];
  return chosen ? (chosen.value as string) : undefined;
}

/** The enterprise extension as Verity keeps it: the known attributes, `manager` as `{value}`. */
export function enterpriseFrom(value: unknown, base: Record<string, unknown> = {}): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidValue(`"${ENTERPRISE_USER_SCHEMA}" must be an object.`);
  }
  const next = { ...base };
  for (const [key, attr] of Object.entries(value as Record<string, unknown>)) setEnterprise(next, key, attr);
  return next;
}

function setEnterprise(target: Record<string, unknown>, attr: string, value: unknown): void {
  const lowered = attr.toLowerCase() === 'manager.value' ? 'manager' : attr.toLowerCase();
  const name = ENTERPRISE_ATTRIBUTES.find((a) => a.toLowerCase() === lowered);
  if (!name) return; // Attributes of the extension Verity does not keep are ignored.
  if (value === null || value === undefined || value === '') {
    delete target[name];
    return;
  }
  if (name === 'manager') {
    // Entra sends the manager's id as a string (or a one-item list); RFC 7643 makes it `{value}`.
    const single: unknown = Array.isArray(value) ? value[0] : value;
    const id = single && typeof single === 'object' ? (single as Record<string, unknown>).value : single;
    if (id === null || id === undefined || id === '') delete target.manager;
    else target.manager = { value: requireString(id, 'manager.value') };
    return;
  }
  target[name] = requireString(value, `${ENTERPRISE_USER_SCHEMA}:${name}`, true);
}

/**
 * Applies PATCH operations to a user. Attributes Verity does not store
 * (title, phoneNumbers, addresses, ...) are accepted and ignored, as
 * identity providers send them on every sync.
 */
export function applyUserPatch(state: ScimUserState, operations: PatchOperation[]): ScimUserState {
  const next = { ...state, enterprise: { ...state.enterprise } };
  const set = (path: string, op: PatchVerb, value: unknown): void => {
    const enterprisePrefix = `${ENTERPRISE_USER_SCHEMA.toLowerCase()}:`;
    if (path.toLowerCase() === ENTERPRISE_USER_SCHEMA.toLowerCase()) {
      next.enterprise = op === 'remove' ? {} : enterpriseFrom(value, op === 'replace' ? {} : next.enterprise);
      return;
    }
    if (path.toLowerCase().startsWith(enterprisePrefix)) {
      setEnterprise(next.enterprise, path.slice(enterprisePrefix.length), op === 'remove' ? null : value);
      return;
    }
    const local = localPath(path, USER_SCHEMA);
    const lowered = local.toLowerCase();
    const removing = op === 'remove';
    if (lowered === 'active') {
      if (removing) throw invalidValue('"active" cannot be removed.');
      next.active = parseActive(value);
    } else if (lowered === 'username') {
      if (removing) throw invalidValue('"userName" cannot be removed.');
      next.userName = requireString(value, 'userName');
    } else if (lowered === 'externalid') {
      next.externalId = removing || value === null ? null : requireString(value, 'externalId', true) || null;
    } else if (lowered === 'name.givenname') {
      next.givenName = removing || value === null ? '' : requireString(value, 'name.givenName', true);
    } else if (lowered === 'name.familyname') {
      next.familyName = removing || value === null ? '' : requireString(value, 'name.familyName', true);
    } else if (lowered === 'name') {
      if (removing) {
        next.givenName = '';
        next.familyName = '';
      } else {
        if (!value || typeof value !== 'object') throw invalidValue('"name" must be an object.');
        const name = value as Record<string, unknown>;
        if (name.givenName !== undefined) set('name.givenName', op, name.givenName);
        if (name.familyName !== undefined) set('name.familyName', op, name.familyName);
      }
    } else if (lowered === 'emails' || lowered === 'emails.value' || lowered.startsWith('emails[')) {
      // The account needs an email (mail, sign-in): removing it keeps the one there is.
      if (removing) return;
      const typed = /^emails\[\s*type\s+eq\s+"([^"]*)"\s*\]/i.exec(local);
      // Only the work (or untyped) address is the account's; other types are not kept.
      if (typed && typed[1].toLowerCase() !== 'work') return;
      const email = lowered.endsWith('.value') ? value : pickEmail(value);
      if (email !== undefined) next.email = requireEmail(email);
    }
  };
  for (const operation of operations) {
    if (operation.path) {
      set(operation.path, operation.op, operation.value);
      continue;
    }
    // No path: the value is an object of attributes (Entra sends dotted keys such as "name.givenName").
    if (!operation.value || typeof operation.value !== 'object' || Array.isArray(operation.value)) {
      throw invalidValue(`"${operation.op}" without a path needs an object value.`);
    }
    for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) {
      set(key, operation.op, value);
    }
  }
  return next;
}

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry) => {
    const id = (entry as Record<string, unknown> | null)?.value;
    if (typeof id !== 'string' || !id) throw invalidValue('Each member needs a "value" (the user id).');
    return id.toLowerCase();
  });
}

/** The user ids named by a `members[value eq "..."]` path (`or` of several allowed). */
function memberFilterIds(node: FilterNode): string[] {
  if (node.kind === 'or') return [...memberFilterIds(node.left), ...memberFilterIds(node.right)];
  if (node.kind === 'compare' && node.attr.toLowerCase() === 'value' && node.op === 'eq') {
    if (typeof node.value !== 'string') throw invalidValue('A member value is a string.');
    return [node.value.toLowerCase()];
  }
  throw invalidPath('A members filter may only be `value eq "<user id>"`.');
}

/** Applies PATCH operations to a group; members are user ids. */
export function applyGroupPatch(state: ScimGroupState, operations: PatchOperation[]): ScimGroupState {
  const members = new Set(state.members);
  const next: ScimGroupState = { ...state, members: [] };
  const set = (path: string, op: PatchVerb, value: unknown): void => {
    const local = localPath(path, GROUP_SCHEMA);
    const lowered = local.toLowerCase();
    const bracket = /^members\[(.+)\]$/i.exec(local);
    if (lowered === 'members') {
      if (op === 'replace') members.clear();
      if (op === 'remove' && value === undefined) members.clear();
      const ids = value === undefined ? [] : memberIds(value);
      for (const id of ids) {
        if (op === 'remove') members.delete(id);
        else members.add(id);
      }
    } else if (bracket) {
      if (op !== 'remove') throw invalidPath('Members are added with the path "members".');
      for (const id of memberFilterIds(parseFilter(bracket[1]))) members.delete(id);
    } else if (lowered === 'displayname') {
      if (op === 'remove') throw invalidValue('"displayName" cannot be removed.');
      next.displayName = requireString(value, 'displayName');
    } else if (lowered === 'externalid') {
      next.externalId =
        op === 'remove' || value === null ? null : requireString(value, 'externalId', true) || null;
    }
  };
  for (const operation of operations) {
    if (operation.path) {
      set(operation.path, operation.op, operation.value);
      continue;
    }
    if (!operation.value || typeof operation.value !== 'object' || Array.isArray(operation.value)) {
      throw invalidValue(`"${operation.op}" without a path needs an object value.`);
    }
    for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) {
      set(key, operation.op, value);
    }
  }
  next.members = [...members];
  return next;
}
