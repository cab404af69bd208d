import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import {
  QueryBooleanField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';

export const INSTANCE_STATUSES = ['active', 'unavailable'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

// Lowercase letters, digits and inner hyphens, like a DNS label.
export const INSTANCE_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const POSTGRES_URL = /^postgres(?:ql)?:\/\/\S+$/;

const SLUG_DOC =
  'Lowercase letters, digits and hyphens (at most 63); unique; not shaped like a UUID, since sign-in names an instance by slug or id.';
const DATABASE_URL_DOC =
  'Write-only: a `postgres://` URL of the instance database, sealed at rest and never returned or logged (`database_url_set` says whether one is stored). The database is migrated before the change is stored; an unreachable database answers 503 and nothing changes.';

export class CreateInstanceDto {
  @StringField({ min: 1, max: 63, pattern: INSTANCE_SLUG, description: SLUG_DOC, example: 'emea' })
  slug: string;

  @TextField({ max: 200, example: 'EMEA business unit' })
  name: string;

  @StringField({ min: 1, max: 2000, pattern: POSTGRES_URL, description: DATABASE_URL_DOC })
  database_url: string;
}

/** Declared apart from create: the update documents what `default` keeps, and drops the examples. */
export class UpdateInstanceDto {
  @StringField({
    optional: true,
    min: 1,
    max: 63,
    pattern: INSTANCE_SLUG,
    description: `${SLUG_DOC} The slug of \`default\` cannot change.`,
  })
  slug?: string;

  @TextField({ optional: true, max: 200 })
  name?: string;

  @StringField({
    optional: true,
    min: 1,
    max: 2000,
    pattern: POSTGRES_URL,
    description: `${DATABASE_URL_DOC} \`default\` always uses the deployment's own database.`,
  })
  database_url?: string;
}

export class DeleteInstanceQuery {
  @QueryBooleanField({
    optional: true,
    default: false,
    description:
      'Delete even though the instance database still holds spaces (the database itself is left as it is).',
  })
  force?: boolean;
}

export class InstanceParams {
  @UuidField()
  id: string;
}

export class InstanceMemberParams {
  @UuidField()
  id: string;

  @UuidField()
  user_id: string;
}

export class ListInstancesQuery extends PageQuery {}

export class SwitchInstanceDto {
  @StringField({
    min: 1,
    max: 63,
    description: 'The instance to switch to: its slug or its id.',
    example: 'emea',
  })
  instance: string;
}

export class InstanceResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'emea' })
  slug: string;

  @ApiProperty({ example: 'EMEA business unit' })
  name: string;

  @ApiProperty({
    enum: INSTANCE_STATUSES,
    enumName: 'InstanceStatus',
    description: '`unavailable` while the instance database cannot be reached (its work answers 503).',
  })
  status: InstanceStatus;

  @ApiProperty({
    description: 'Whether a database URL is stored; false for `default`, the deployment database.',
  })
  database_url_set: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** An instance the caller may reach, as `GET /auth/instances` lists it. */
export class AvailableInstanceResponse extends PickType(InstanceResponse, ['id', 'slug', 'name'] as const) {
  @ApiProperty({ enum: INSTANCE_STATUSES, enumName: 'InstanceStatus' })
  status: InstanceStatus;

  @ApiProperty({ description: 'Whether the credential of this request is for this instance.' })
  is_current: boolean;
}

export class InstanceMemberResponse {
  @ApiProperty({ format: 'uuid' })
  instance_id: string;

  @ApiProperty({ format: 'uuid' })
  user_id: string;

  @ApiProperty({
    format: 'date-time',
    description:
      'When the user was added; for `default`, which every user belongs to, when the account was created.',
  })
  created_at: string;
}
