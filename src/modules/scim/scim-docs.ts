import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiHeader, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { SCIM_CONTENT_TYPE } from './scim-resources';

const RESOURCE_SCHEMA = {
  type: 'object',
  additionalProperties: true,
  required: ['schemas', 'id', 'meta'],
  properties: {
    schemas: { type: 'array', items: { type: 'string' } },
    id: { type: 'string', format: 'uuid' },
    externalId: { type: 'string' },
    meta: {
      type: 'object',
      properties: {
        resourceType: { type: 'string' },
        created: { type: 'string', format: 'date-time' },
        lastModified: { type: 'string', format: 'date-time' },
        location: { type: 'string' },
        version: { type: 'string', example: 'W/"1764050000000"' },
      },
    },
  },
};

export const USER_EXAMPLE = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'ada@example.com',
  externalId: '00u1abcd',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
};

export const GROUP_EXAMPLE = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
  displayName: 'Data team',
  members: [{ value: '3f1c9a52-7a43-4d9e-9d53-0d6cb1e8a6f1' }],
};

const PATCH_EXAMPLE = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
};

/** A SCIM JSON body (application/scim+json or application/json). */
export function ScimBody(kind: 'User' | 'Group' | 'PatchOp') {
  const example = kind === 'User' ? USER_EXAMPLE : kind === 'Group' ? GROUP_EXAMPLE : PATCH_EXAMPLE;
  const schema = { type: 'object', additionalProperties: true, example };
  return applyDecorators(
    ApiConsumes(SCIM_CONTENT_TYPE, 'application/json'),
    ApiBody({ schema, description: `A SCIM ${kind} (RFC 7643/7644).` }),
  );
}

/** A SCIM resource (or list) answer, with its ETag when it is one resource. */
export function ScimOk(status: 200 | 201, description: string, list = false) {
  return applyDecorators(
    ApiProduces(SCIM_CONTENT_TYPE),
    ApiResponse({
      status,
      description,
      content: {
        [SCIM_CONTENT_TYPE]: {
          schema: list
            ? {
                type: 'object',
                properties: {
                  schemas: { type: 'array', items: { type: 'string' } },
                  totalResults: { type: 'integer' },
                  startIndex: { type: 'integer' },
                  itemsPerPage: { type: 'integer' },
                  Resources: { type: 'array', items: RESOURCE_SCHEMA },
                },
              }
            : RESOURCE_SCHEMA,
        },
      },
      ...(list ? {} : { headers: { ETag: { description: 'W/"<version>"', schema: { type: 'string' } } } }),
    }),
  );
}

/** A plain SCIM document (discovery). */
export function ScimDocument(description: string) {
  return applyDecorators(
    ApiProduces(SCIM_CONTENT_TYPE),
    ApiResponse({
      status: 200,
      description,
      content: { [SCIM_CONTENT_TYPE]: { schema: { type: 'object', additionalProperties: true } } },
    }),
  );
}

export function IfMatchHeader() {
  return ApiHeader({
    name: 'If-Match',
    required: false,
    description:
      'A version (ETag) from an earlier read: the write answers 412 if the resource changed since.',
  });
}
