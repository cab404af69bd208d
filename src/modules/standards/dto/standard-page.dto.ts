import { ApiProperty } from '@nestjs/swagger';
import { PageOf, PageQuery } from '../../../common/http/page.dto';
import { SlugParams } from '../../../common/http/slug-params.dto';
import { EnumField, StringField, TextField, UuidField } from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { STANDARD_PAGE_STATUSES } from '../entities/standard-page.entity';

const BODY = 'The page text (Markdown is kept as written), at most 100,000 characters.';

export class StandardPagePathParams extends SlugParams {
  @UuidField({ description: 'The standards page id.' })
  id: string;
}

export class CreateStandardPageDto {
  @TextField({ max: 300 })
  title: string;

  @StringField({ optional: true, max: 100_000, default: '', description: BODY })
  body?: string;

  @EnumField(STANDARD_PAGE_STATUSES, {
    optional: true,
    enumName: 'StandardPageStatus',
    default: 'draft',
    description: 'Created as a draft unless `published` is asked for.',
  })
  status?: 'draft' | 'published';
}

/** Only the fields given change. `body` and `status` are declared here: create documents their defaults. */
export class UpdateStandardPageDto extends UpdateType(CreateStandardPageDto, ['title'] as const) {
  @StringField({ optional: true, max: 100_000, description: BODY })
  body?: string;

  @EnumField(STANDARD_PAGE_STATUSES, {
    optional: true,
    enumName: 'StandardPageStatus',
    description: 'Changing it is the same as publish / unpublish.',
  })
  status?: 'draft' | 'published';
}

export class ListStandardPagesQuery extends PageQuery {
  @EnumField(STANDARD_PAGE_STATUSES, {
    optional: true,
    enumName: 'StandardPageStatus',
    description: 'Only pages in this status (viewers only ever see published pages).',
  })
  status?: 'draft' | 'published';
}

export class StandardPageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  space_slug: string;

  @ApiProperty()
  title: string;

  @ApiProperty()
  body: string;

  @ApiProperty({ enum: STANDARD_PAGE_STATUSES, enumName: 'StandardPageStatus' })
  status: string;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the page was last published; null while it is a draft.',
  })
  published_at: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  created_by: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  updated_by: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export const StandardPagePageResponse = PageOf(StandardPageResponse);
