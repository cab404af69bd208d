import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, EnumField, JsonObjectField } from '../../../common/validation/field.decorators';
import { IMPORT_MODES, ImportMode, PRODUCT_ROLES, SPACE_ROLES } from '../permissions-plan';

export class ExportedMember {
  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({
    enum: SPACE_ROLES,
    description:
      'The role granted directly (`direct_role` of `GET /spaces/{slug}/members`), not the effective role: members only through SCIM groups are not listed here but in `group_grants`.',
  })
  role: string;
}

export class ExportedGroupGrant {
  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({ description: 'The SCIM group (its displayName).', example: 'Finance analysts' })
  group: string;

  @ApiProperty({ enum: SPACE_ROLES, description: 'The role the group is mapped to in the space.' })
  role: string;
}

export class ExportedSpace {
  @ApiProperty({ example: 'finance' })
  slug: string;

  @ApiProperty({ description: 'For reference; an import does not change it.' })
  name: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'boolean' },
    description: 'Feature flags with defaults applied; for reference, an import does not change them.',
  })
  features: Record<string, boolean>;

  @ApiProperty({
    type: ExportedMember,
    isArray: true,
    description: 'The direct grants: what an import reads and writes.',
  })
  members: ExportedMember[];

  @ApiProperty({
    type: ExportedGroupGrant,
    isArray: true,
    required: false,
    description:
      "Read-only: the roles mapped SCIM groups grant in the space, one entry per member and group. A member's effective role is the highest of their direct role and these. Left out when no group grants a role in the space. For reference; an import ignores it (groups change through SCIM and `/admin/scim-group-mappings`), and documents without it are accepted.",
  })
  group_grants?: ExportedGroupGrant[];
}

export class ExportedProductRole {
  @ApiProperty({ description: 'The space slug.', example: 'finance' })
  space: string;

  @ApiProperty({ description: 'The product name (unique in its space).', example: 'orders_v2' })
  product: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({ enum: PRODUCT_ROLES })
  role: string;
}

export class PermissionsDocumentResponse {
  @ApiProperty({ example: 1 })
  version: number;

  @ApiProperty({ format: 'date-time' })
  exported_at: string;

  @ApiProperty({ type: String, isArray: true, description: 'Emails of the superadmins.' })
  superadmins: string[];

  @ApiProperty({ type: ExportedSpace, isArray: true })
  spaces: ExportedSpace[];

  @ApiProperty({ type: ExportedProductRole, isArray: true })
  product_roles: ExportedProductRole[];
}

export class ImportPermissionsDto {
  @JsonObjectField({ description: 'A document as `GET /admin/permissions/export` answers it.' })
  document: Record<string, unknown>;

  @EnumField(IMPORT_MODES, {
    description:
      '`merge` adds and updates direct grants; `replace` also removes superadmin flags not listed, and the direct grants and product roles of the listed spaces that the document does not name. Roles granted by SCIM groups are never changed.',
  })
  mode: ImportMode;

  @BooleanField({ optional: true, description: 'Answer the changes without making them (default false).' })
  dry_run?: boolean;
}

export class PermissionChange {
  @ApiProperty({ enum: ['superadmin', 'membership', 'product_role'] })
  kind: string;

  @ApiProperty()
  email: string;

  @ApiProperty({ required: false, description: 'The space slug (memberships, product roles).' })
  space?: string;

  @ApiProperty({ required: false, description: 'The product name (product roles).' })
  product?: string;

  @ApiProperty({
    required: false,
    description: 'The role; for memberships the direct grant set (added, updated) or cleared (removed).',
  })
  role?: string;

  @ApiProperty({ required: false, description: 'The direct grant before (updated memberships).' })
  previous_role?: string;

  @ApiProperty({
    required: false,
    enum: SPACE_ROLES,
    description:
      'Memberships of users whom mapped SCIM groups also grant a role in the space: their effective role after the import (the highest of the direct grant and the group roles). A removed direct grant leaves them a member with this role.',
  })
  effective_role?: string;

  @ApiProperty({
    required: false,
    description:
      'With `effective_role`: the outcome in words, e.g. `direct grant removed, still editor through group Finance analysts`.',
    example: 'direct grant removed, still editor through group Finance analysts',
  })
  note?: string;
}

export class PermissionsImportResponse {
  @ApiProperty({ enum: IMPORT_MODES })
  mode: string;

  @ApiProperty({ description: 'True when nothing was written.' })
  dry_run: boolean;

  @ApiProperty({ type: PermissionChange, isArray: true })
  added: PermissionChange[];

  @ApiProperty({ type: PermissionChange, isArray: true })
  updated: PermissionChange[];

  @ApiProperty({ type: PermissionChange, isArray: true })
  removed: PermissionChange[];
}
