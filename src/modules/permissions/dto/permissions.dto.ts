import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, EnumField, JsonObjectField } from '../../../common/validation/field.decorators';
import { IMPORT_MODES, ImportMode, PRODUCT_ROLES, SPACE_ROLES } from '../permissions-plan';

export class ExportedMember {
  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({ enum: SPACE_ROLES })
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

  @ApiProperty({ type: ExportedMember, isArray: true })
  members: ExportedMember[];
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
      '`merge` adds and updates; `replace` also removes superadmin flags not listed, and the members and product roles of the listed spaces that the document does not name.',
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

  @ApiProperty({ required: false })
  role?: string;

  @ApiProperty({ required: false, description: 'The role before (updated memberships).' })
  previous_role?: string;
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
