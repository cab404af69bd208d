import type { AppConfig } from '../../config/app.config';
import type { SpaceRoleName } from '../../common/permissions/space-access.port';
import {
  ENTERPRISE_USER_SCHEMA,
  enterpriseFrom,
  parseActive,
  pickEmail,
  requireEmail,
  ScimUserState,
} from './scim-patch';
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

/**
 * A User resource of a POST or PUT; attributes Verity does not store are
 * ignored. userName is kept as sent; the account email is the work email
 * (else the primary, else the first), or userName when it is an email and
 * no email is sent.
 */
export function userFromResource(body: unknown): ScimUserState {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidValue('The body must be a User resource.');
  const resource = body as Record<string, unknown>;
  const userName = optionalString(resource.userName, 'userName');
  if (!userName) throw invalidValue('"userName" is required.');
  const picked = optionalString(pickEmail(resource.emails), 'emails');
  const email = picked ?? (userName.includes('@') ? userName : undefined);
  if (!email) {
    throw invalidValue('A user needs an email: send a work email in "emails", or a userName that is one.');
  }
  const name = (resource.name ?? {}) as Record<string, unknown>;
  if (typeof name !== 'object') throw invalidValue('"name" must be an object.');
  const extension = resource[ENTERPRISE_USER_SCHEMA];
  return {
    userName,
    email: requireEmail(email),
    externalId: optionalString(resource.externalId, 'externalId') || null,
    givenName: optionalString(name.givenName, 'name.givenName') ?? '',
    familyName: optionalString(name.familyName, 'name.familyName') ?? '',
    active: resource.active === undefined ? true : parseActive(resource.active),
    enterprise: extension === undefined || extension === null ? {} : enterpriseFrom(extension),
  };
}

export interface GroupInput {
  displayName: string;
  externalId: string | null;
  /** Undefined when the resource names no members. */
  members?: string[];
}

/** The `<space-slug>:<role>` shortcut: a group so named is mapped to that role when it is created. */
export function roleShortcut(displayName: string): { slug: string; role: SpaceRoleName } | null {
  const match = /^([a-z0-9][a-z0-9-]{0,62}):(admin|editor|viewer)$/i.exec(displayName.trim());
  return match ? { slug: match[1].toLowerCase(), role: match[2].toLowerCase() as SpaceRoleName } : null;
}

export const MAX_DISPLAY_NAME = 256;

/** A group displayName: any non-empty text up to 256 characters. */
export function requireDisplayName(value: unknown): string {
  const displayName = optionalString(value, 'displayName');
  if (!displayName) throw invalidValue('"displayName" is required.');
  if (displayName.length > MAX_DISPLAY_NAME) {
    throw invalidValue(`"displayName" is at most ${MAX_DISPLAY_NAME} characters.`);
  }
  return displayName;
}

/** A Group resource of a POST or PUT. */
export function groupFromResource(body: unknown): GroupInput {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidValue('The body must be a Group resource.');
  const resource = body as Record<string, unknown>;
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
    displayName: requireDisplayName(resource.displayName),
    externalId: optionalString(resource.externalId, 'externalId') || null,
    members,
  };
}
