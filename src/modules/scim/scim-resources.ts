import type { Response } from 'express';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './scim-patch';

export const SCIM_CONTENT_TYPE = 'application/scim+json';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 100;

/** OpenAPI schema of a SCIM error body. */
export const SCIM_ERROR_SCHEMA_REF = {
  type: 'object',
  required: ['schemas', 'status', 'detail'],
  properties: {
    schemas: {
      type: 'array',
      items: { type: 'string', example: 'urn:ietf:params:scim:api:messages:2.0:Error' },
    },
    status: { type: 'string', example: '409' },
    scimType: { type: 'string', example: 'uniqueness' },
    detail: { type: 'string' },
  },
};

/** A user as SCIM shows it. */
export interface ScimUserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScimGroupRow {
  id: string;
  slug: string;
  role: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScimMeta {
  resourceType: 'User' | 'Group';
  created: string;
  lastModified: string;
  location: string;
  version: string;
}

/** The weak ETag of a resource: its last modification in milliseconds. */
/** Sets the resource's ETag (and Location for a creation) on the answer. */
export function withEtag(
  res: Response,
  resource: Record<string, unknown>,
  created = false,
): Record<string, unknown> {
  const meta = resource.meta as { version: string; location: string };
  res.setHeader('ETag', meta.version);
  if (created) res.setHeader('Location', meta.location);
  return resource;
}

export const versionOf = (updatedAt: Date) => `W/"${updatedAt.getTime()}"`;

export function toScimUser(row: ScimUserRow, base: string): Record<string, unknown> {
  const displayName = [row.first_name, row.last_name].filter(Boolean).join(' ');
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.email,
    name: { givenName: row.first_name, familyName: row.last_name, formatted: displayName },
    ...(displayName ? { displayName } : {}),
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.is_active,
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Users/${row.id}`,
      version: versionOf(row.updated_at),
    } satisfies ScimMeta,
  };
}

export function toScimGroup(
  row: ScimGroupRow,
  members: { id: string; email: string }[] | null,
  base: string,
): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    displayName: `${row.slug}:${row.role}`,
    ...(members
      ? { members: members.map((m) => ({ value: m.id, display: m.email, $ref: `${base}/Users/${m.id}` })) }
      : {}),
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Groups/${row.id}`,
      version: versionOf(row.updated_at),
    } satisfies ScimMeta,
  };
}

export function listResponse(resources: unknown[], total: number, startIndex: number) {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM token',
        description: 'A bearer token from POST /api/v1.0/admin/scim-tokens.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypeList(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A Verity account; userName is its email.',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'The members of one space with one role, named `<space-slug>:<role>`.',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

const attribute = (
  name: string,
  type: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function schemaList(base: string) {
  const user = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A Verity account.',
    attributes: [
      attribute('userName', 'string', {
        required: true,
        uniqueness: 'server',
        description: 'The email, lowercased.',
      }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
          attribute('formatted', 'string', { mutability: 'readOnly' }),
        ],
      }),
      attribute('displayName', 'string', { mutability: 'readOnly' }),
      attribute('emails', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string'),
          attribute('type', 'string'),
          attribute('primary', 'boolean'),
        ],
      }),
      attribute('active', 'boolean'),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  };
  const group = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'The members of one space with one role.',
    attributes: [
      attribute('displayName', 'string', {
        required: true,
        uniqueness: 'server',
        description: '`<space-slug>:<role>`.',
      }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('members', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string', { mutability: 'immutable' }),
          attribute('display', 'string', { mutability: 'readOnly' }),
          attribute('$ref', 'reference', { mutability: 'immutable', referenceTypes: ['User'] }),
        ],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
  };
  return [user, group];
}
