import { ApiProperty } from '@nestjs/swagger';
import { SPACE_ROLES } from '../../../common/permissions/space-access.port';

export class SpaceResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ example: 'data-platform' })
  slug: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'boolean' },
    example: { 'quality.incidents': true },
    description: 'Feature flags; every known flag is present with its value (defaults filled in).',
  })
  features: Record<string, boolean>;

  @ApiProperty({
    enum: SPACE_ROLES,
    enumName: 'SpaceRole',
    nullable: true,
    description: "The caller's role in the space; null for a superadmin who is not a member.",
  })
  role: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class MemberGrantResponse {
  @ApiProperty({
    enum: ['direct', 'scim_group'],
    description:
      '`direct`: granted in Verity (members API, permissions import, space creation); `scim_group`: through a SCIM group mapped to a role here.',
  })
  source: 'direct' | 'scim_group';

  @ApiProperty({ enum: SPACE_ROLES, enumName: 'SpaceRole' })
  role: string;

  @ApiProperty({ format: 'uuid', required: false, description: 'The SCIM group, for `scim_group`.' })
  group_id?: string;

  @ApiProperty({ required: false, description: "The SCIM group's displayName, for `scim_group`." })
  group_name?: string;
}

export class MemberResponse {
  @ApiProperty({ format: 'uuid' })
  user_id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty()
  full_name: string;

  @ApiProperty({
    enum: SPACE_ROLES,
    enumName: 'SpaceRole',
    description: 'The effective role: the highest of the direct role and the roles granted by SCIM groups.',
  })
  role: string;

  @ApiProperty({
    enum: SPACE_ROLES,
    enumName: 'SpaceRole',
    nullable: true,
    type: String,
    description: 'The role granted directly; null when the user is a member only through SCIM groups.',
  })
  direct_role: string | null;

  @ApiProperty({
    type: [MemberGrantResponse],
    description: 'Where the role comes from: the direct grant and each mapped SCIM group the user is in.',
  })
  granted_by: MemberGrantResponse[];

  @ApiProperty({ description: 'False when the account was deactivated.' })
  is_active: boolean;

  @ApiProperty({ format: 'date-time', description: 'When the user became a member.' })
  joined_at: string;
}
