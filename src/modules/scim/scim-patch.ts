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

/** What Verity keeps of a SCIM user. */
export interface ScimUserState {
  userName: string;
  externalId: string | null;
  givenName: string;
  familyName: string;
  active: boolean;
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

/** The address among `emails` that Verity keeps: the primary one, else the work one, else the first. */
export function pickEmail(value: unknown): string | undefined {
  const list = (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown> | null>;
  const entries = list.filter((e): e is Record<string, unknown> => !!e && typeof e.value === 'string');
  const chosen =
    entries.find((e) => e.primary === true || e.primary === 'true' || e.primary === 'True') ??
    entries.find((e) => typeof e.type === 'string' && e.type.toLowerCase() === 'work') ??
    entries[0];
  return chosen ? (chosen.value as string) : undefined;
}

/**
 * Applies PATCH operations to a user. Attributes Verity does not store
 * (title, phoneNumbers, the enterprise extension, ...) are accepted and
 * ignored, as identity providers send them on every sync.
 */
export function applyUserPatch(state: ScimUserState, operations: PatchOperation[]): ScimUserState {
  const next = { ...state };
  const set = (path: string, op: PatchVerb, value: unknown): void => {
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
    } else if (lowered === 'emails' || lowered.startsWith('emails[')) {
      if (removing) return; // The email is the user name: it stays.
      const email = lowered.endsWith('.value') ? value : pickEmail(value);
      if (email !== undefined) next.userName = requireString(email, 'emails.value');
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
