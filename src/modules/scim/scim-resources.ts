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
  /** The SCIM userName; the email for accounts SCIM did not provision. */
  user_name: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  external_id: string | null;
  enterprise: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScimGroupRow {
  id: string;
  display_name: string;
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
  const enterprise = row.enterprise && Object.keys(row.enterprise).length ? row.enterprise : null;
  return {
    schemas: enterprise ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    name: { givenName: row.first_name, familyName: row.last_name, formatted: displayName },
    ...(displayName ? { displayName } : {}),
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.is_active,
    ...(enterprise ? { [ENTERPRISE_USER_SCHEMA]: enterprise } : {}),
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
  members: { id: string; display: string }[] | null,
  base: string,
): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    displayName: row.display_name,
    ...(members
      ? { members: members.map((m) => ({ value: m.id, display: m.display, $ref: `${base}/Users/${m.id}` })) }
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
      description:
        'A Verity account: userName is the identity provider login, the work email is the account email.',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description:
        'A group as the identity provider sends it; a superadmin maps it to space roles (/api/v1.0/admin/scim-group-mappings).',
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
        description:
          'The identity provider login (for example the userPrincipalName), kept as sent; unique ignoring case. Not the account email.',
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
        description:
          'The account email (mail, password sign-in, SSO matching) is the work email, else the primary, else the first; Verity keeps one.',
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
    description: 'A group of users; the space roles it grants are mapped by a superadmin.',
    attributes: [
      attribute('displayName', 'string', {
        required: true,
        uniqueness: 'server',
        description:
          'Any name up to 256 characters, unique ignoring case. A group created as `<space-slug>:<role>` of an existing space is mapped to that role.',
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
  const stringAttr = (name: string) => attribute(name, 'string');
  const enterprise = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: ENTERPRISE_USER_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise User (RFC 7643 §4.3): kept as sent, returned on reads.',
    attributes: [
      stringAttr('employeeNumber'),
      stringAttr('costCenter'),
      stringAttr('organization'),
      stringAttr('division'),
      stringAttr('department'),
      attribute('manager', 'complex', {
        subAttributes: [
          attribute('value', 'string'),
          attribute('$ref', 'reference', { referenceTypes: ['User'] }),
          attribute('displayName', 'string', { mutability: 'readOnly' }),
        ],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${ENTERPRISE_USER_SCHEMA}` },
  };
  return [user, group, enterprise];
}
