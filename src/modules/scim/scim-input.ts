import type { AppConfig } from '../../config/app.config';
import { parseActive, pickEmail, ScimUserState } from './scim-patch';
import { DEFAULT_PAGE, MAX_PAGE } from './scim-resources';
import { ScimError } from './scim.errors';

export interface ListParams {
  filter?: string;
  startIndex?: string;
  count?: string;
  excludedAttributes?: string;
}

export const scimBase = (config: AppConfig) => `${config.publicBaseUrl}/api/v1.0/scim/v2`;

/** `startIndex` is 1-based (below 1 counts as 1); `count` defaults to 100, at most 200, 0 answers only the total. */
export function pageOf(params: ListParams): { startIndex: number; count: number } {
  const startIndex = Number.parseInt(params.startIndex ?? '1', 10);
  const count = Number.parseInt(params.count ?? String(DEFAULT_PAGE), 10);
  return {
    startIndex: Number.isFinite(startIndex) && startIndex >= 1 ? startIndex : 1,
    count: Number.isFinite(count) ? Math.min(Math.max(count, 0), MAX_PAGE) : DEFAULT_PAGE,
  };
}

const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');

function optionalString(value: unknown, attr: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidValue(`"${attr}" must be a string.`);
  return value.trim();
}

/** A User resource of a POST or PUT; attributes Verity does not store are ignored. */
export function userFromResource(body: unknown): ScimUserState {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidValue('The body must be a User resource.');
  const resource = body as Record<string, unknown>;
  const userName =
    optionalString(resource.userName, 'userName') ?? optionalString(pickEmail(resource.emails), 'emails');
  if (!userName) throw invalidValue('"userName" is required.');
  if (!userName.includes('@')) throw invalidValue('userName must be an email address.');
  const name = (resource.name ?? {}) as Record<string, unknown>;
  if (typeof name !== 'object') throw invalidValue('"name" must be an object.');
  return {
    userName: userName.toLowerCase(),
    externalId: optionalString(resource.externalId, 'externalId') || null,
    givenName: optionalString(name.givenName, 'name.givenName') ?? '',
    familyName: optionalString(name.familyName, 'name.familyName') ?? '',
    active: resource.active === undefined ? true : parseActive(resource.active),
  };
}

export interface GroupInput {
  slug: string;
  role: 'admin' | 'editor' | 'viewer';
  externalId: string | null;
  /** Undefined when the resource names no members. */
  members?: string[];
}

/** Group display names are `<space-slug>:<role>`. */
export function parseGroupName(displayName: string): { slug: string; role: GroupInput['role'] } {
  const match = /^([a-z0-9][a-z0-9-]{0,62}):(admin|editor|viewer)$/i.exec(displayName.trim());
  if (!match) {
    throw invalidValue('A group displayName is "<space-slug>:<role>" with the role admin, editor or viewer.');
  }
  return { slug: match[1].toLowerCase(), role: match[2].toLowerCase() as GroupInput['role'] };
}

/** A Group resource of a POST or PUT. */
export function groupFromResource(body: unknown): GroupInput {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidValue('The body must be a Group resource.');
  const resource = body as Record<string, unknown>;
  const displayName = optionalString(resource.displayName, 'displayName');
  if (!displayName) throw invalidValue('"displayName" is required.');
  let members: string[] | undefined;
  if (resource.members !== undefined && resource.members !== null) {
    if (!Array.isArray(resource.members)) throw invalidValue('"members" must be a list.');
    members = resource.members.map((m) => {
      const value = (m as Record<string, unknown> | null)?.value;
      if (typeof value !== 'string') throw invalidValue('Each member needs a "value" (the user id).');
      return value.toLowerCase();
    });
  }
  return {
    ...parseGroupName(displayName),
    externalId: optionalString(resource.externalId, 'externalId') || null,
    members,
  };
}
