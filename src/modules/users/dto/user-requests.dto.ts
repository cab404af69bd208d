import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  BooleanField,
  DateField,
  EnumField,
  HexColorField,
  QueryIntField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { AI_LITERACY_STATUSES } from '../entities/user.entity';

/** `email_avatar` is accepted as an alias of `gravatar`. */
export const AVATAR_STYLE_INPUTS = ['initials', 'gravatar', 'email_avatar', 'upload'] as const;

export function normaliseAvatarStyle(value: string): 'initials' | 'gravatar' | 'upload' {
  return value === 'email_avatar' ? 'gravatar' : (value as 'initials' | 'gravatar' | 'upload');
}

export class UpdateMyProfileDto {
  @TextField({ optional: true, max: 100 })
  first_name?: string;

  @StringField({ optional: true, max: 100 })
  last_name?: string;

  @EnumField(AVATAR_STYLE_INPUTS, { optional: true, description: '`email_avatar` is stored as `gravatar`.' })
  avatar_style?: string;

  @HexColorField({ optional: true })
  avatar_color?: string;
}

/** The name fields are the profile's; the rest only an administrator changes. */
export class UpdateUserDto extends PickType(UpdateMyProfileDto, ['first_name', 'last_name'] as const) {
  @BooleanField({ optional: true, description: 'Deactivating revokes every session of the user.' })
  is_active?: boolean;

  @BooleanField({ optional: true, description: 'The last active superadmin cannot lose the role (409).' })
  is_superadmin?: boolean;

  @EnumField(AI_LITERACY_STATUSES, { optional: true })
  ai_literacy_status?: string;

  @StringField({ optional: true, nullable: true, max: 200 })
  ai_literacy_program?: string | null;

  @DateField({ optional: true, nullable: true })
  ai_literacy_completion_date?: string | null;

  @DateField({ optional: true, nullable: true })
  ai_literacy_next_renewal?: string | null;
}

export class ListUsersQuery {
  @UuidField({ optional: true, description: 'Members of this space; required for space admins.' })
  space_id?: string;

  @StringField({ optional: true, max: 200, description: 'Part of the name or email.' })
  search?: string;

  @EnumField(['admin', 'editor', 'viewer'], {
    optional: true,
    description: 'Space role in `space_id` (or in any space, for superadmins without `space_id`).',
  })
  role?: string;

  @QueryIntField({ min: 1, default: 1, description: '1-based page number.' })
  page?: number = 1;

  @QueryIntField({ min: 1, max: 200, default: 50 })
  size?: number = 50;
}

export class SearchUsersQuery {
  @ApiPropertyOptional({ description: 'Part of the name or email; empty lists the first matches.' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @StringField({ optional: true, max: 200 })
  q?: string;

  @UuidField({ optional: true, description: 'Only members of this space (the caller must belong to it).' })
  space_id?: string;
}

export class UserIdParams {
  @UuidField()
  id: string;
}
