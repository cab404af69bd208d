import { PickType } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';

import { PageQuery } from '../../../common/http/page.dto';

import { SPACE_ROLES } from '../../../common/permissions/space-access.port';

import {
  BooleanField,
  EnumField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';

import { SLUG_PATTERN } from '../slug';

export class CreateSpaceDto {
  @TextField({ max: 200, example: 'Data Platform' })
  name: string;

  @StringField({
    optional: true,
    min: 2,
    max: 63,
    pattern: SLUG_PATTERN,
    description:
      'Lowercase letters, digits and hyphens, 2 to 63 characters, not starting with a hyphen, and not shaped like a UUID. ' +
      'When left out it is derived from the name (accents dropped, other characters turned into hyphens), with `-2`, `-3`, ... appended while taken. ' +
      'An explicit slug that is taken answers 409.',
    example: 'data-platform',
  })
  slug?: string;

  @StringField({ optional: true, nullable: true, max: 5000 })
  description?: string | null;
}

/**
 * Only the fields given change; the slug never changes. `description` is create's (already optional);
 * `name` is declared here: on create it is required and documented with an example.
 */
export class UpdateSpaceDto extends PickType(CreateSpaceDto, ['description'] as const) {
  @TextField({ optional: true, max: 200 })
  name?: string;
}

/** Flags to set; those left out keep their value. */
export class UpdateSpaceFeaturesDto {
  @BooleanField({
    optional: true,
    description: 'Quality incidents; when false, incident endpoints answer 403 naming the feature.',
  })
  'quality.incidents'?: boolean;
}

export class ListSpacesQuery extends PageQuery {}

export class MemberParams extends SlugParams {
  @UuidField()
  user_id: string;
}

export class AddMemberDto {
  @UuidField({ description: 'An active user.' })
  user_id: string;

  @EnumField(SPACE_ROLES, { enumName: 'SpaceRole' })
  role: string;
}

export class UpdateMemberDto {
  @EnumField(SPACE_ROLES, { enumName: 'SpaceRole' })
  role: string;
}

export class ListMembersQuery extends PageQuery {}
