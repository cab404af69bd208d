import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { SPACE_ROLES } from '../../../common/permissions/space-access.port';
import { EnumField, StringField, UuidField } from '../../../common/validation/field.decorators';

export class CreateScimGroupMappingDto {
  @UuidField({ description: 'The SCIM group (its SCIM id).' })
  group_id: string;

  @StringField({ max: 63, description: 'The slug of the space.', example: 'finance' })
  space: string;

  @EnumField(SPACE_ROLES, {
    enumName: 'SpaceRole',
    description: 'The role the group members hold in the space.',
  })
  role: string;
}

/** Only the role changes (the group and the space make the mapping). */
export class UpdateScimGroupMappingDto extends PickType(CreateScimGroupMappingDto, ['role'] as const) {}

export class ListScimGroupMappingsQuery extends PageQuery {
  @UuidField({ optional: true, description: 'Only the mappings of this SCIM group.' })
  group_id?: string;

  @StringField({ optional: true, max: 63, description: 'Only the mappings into this space (its slug).' })
  space?: string;
}

export class ScimGroupMappingParams {
  @UuidField()
  mapping_id: string;
}

export class ScimGroupMappingResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  group_id: string;

  @ApiProperty({ description: "The group's SCIM displayName.", example: 'Data team' })
  group_name: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty({ example: 'finance' })
  space: string;

  @ApiProperty({ enum: SPACE_ROLES, enumName: 'SpaceRole' })
  role: string;

  @ApiProperty({ type: 'integer', description: 'How many users are in the group.' })
  member_count: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
