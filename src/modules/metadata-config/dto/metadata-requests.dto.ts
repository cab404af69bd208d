import { PickType } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';

import {
  HexColorField,
  IntField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';

export const STATUS_SLUG_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export class CreateLevelDto {
  @TextField({
    max: 100,
    description: 'Unique among the live values of the collection in the space (case-insensitive).',
  })
  name: string;

  @HexColorField({ optional: true, default: '#6B7280' })
  color?: string;

  @IntField({
    optional: true,
    min: 0,
    max: 100_000,
    description: 'Position in lists (ascending). Defaults to after the last live value.',
  })
  sort_order?: number;

  @StringField({ optional: true, nullable: true, max: 2000 })
  description?: string | null;
}

/**
 * `description` is create's (already optional). The others are declared here: on create `name` is
 * required and documented, `color` documents a default that must not apply on update, and
 * `sort_order` documents create's placement.
 */
export class UpdateLevelDto extends PickType(CreateLevelDto, ['description'] as const) {
  @TextField({ optional: true, max: 100 })
  name?: string;

  @HexColorField({ optional: true })
  color?: string;

  @IntField({ optional: true, min: 0, max: 100_000 })
  sort_order?: number;
}

export class CreateStatusDto {
  @TextField({ max: 100, description: 'Unique among the live statuses of the space (case-insensitive).' })
  name: string;

  @StringField({
    optional: true,
    max: 63,
    pattern: STATUS_SLUG_PATTERN,
    description:
      'snake_case, unique among the live statuses of the space; products name a status by it. Derived from the name when left out (`Under Maintenance` -> `under_maintenance`).',
  })
  slug?: string;

  @HexColorField({ optional: true, default: '#6B7280' })
  color?: string;

  @IntField({ optional: true, min: 0, max: 100_000, description: 'Defaults to after the last live status.' })
  sort_order?: number;
}

/** Declared apart from create, which documents the rules of a first value (slug derivation, defaults). */
export class UpdateStatusDto {
  @TextField({ optional: true, max: 100 })
  name?: string;

  @StringField({ optional: true, max: 63, pattern: STATUS_SLUG_PATTERN })
  slug?: string;

  @HexColorField({ optional: true })
  color?: string;

  @IntField({ optional: true, min: 0, max: 100_000 })
  sort_order?: number;
}

export class LevelParams extends SlugParams {
  @UuidField()
  level_id: string;
}

export class StatusParams extends SlugParams {
  @UuidField()
  status_id: string;
}
