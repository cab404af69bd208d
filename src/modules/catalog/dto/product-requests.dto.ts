import { SlugParams } from '../../../common/http/slug-params.dto';

import { Transform } from 'class-transformer';

import { PageQuery } from '../../../common/http/page.dto';

import {
  DateTimeField,
  EnumField,
  IntField,
  JsonObjectField,
  StringArrayField,
  StringField,
  TextField,
  UuidArrayField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';

import { PRODUCT_TYPES } from '../entities/product.entity';

// Tags and event types are trimmed and deduplicated; blank ones are dropped.
const cleanList = ({ value }: { value: unknown }) =>
  Array.isArray(value)
    ? [...new Set(value.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== ''))]
    : value;

const uniqueIds = ({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value)] : value);

export class CreateProductDto {
  @TextField({ max: 200, description: 'Unique in the space, compared case-insensitively (409).' })
  name: string;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  description?: string | null;

  @EnumField(PRODUCT_TYPES, { optional: true, default: 'dataset', enumName: 'ProductType' })
  product_type?: string;

  @StringField({ optional: true, nullable: true, max: 200, example: 'finance' })
  domain?: string | null;

  @Transform(cleanList)
  @StringArrayField({ optional: true, maxItems: 50, itemMax: 100, example: ['pii', 'gold'] })
  tags?: string[];

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'The name of a live criticality level of the space (case-insensitive); 422 otherwise.',
    example: 'High',
  })
  criticality?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'The name of a live sensitivity level of the space (case-insensitive); 422 otherwise.',
    example: 'Confidential',
  })
  sensitivity?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'The slug of a live maintenance status of the space; 422 otherwise.',
    example: 'active',
  })
  maintenance_status?: string | null;

  @Transform(uniqueIds)
  @UuidArrayField({
    optional: true,
    maxItems: 50,
    description: 'Members of the space; 422 naming the field otherwise.',
  })
  owner_ids?: string[];

  @Transform(uniqueIds)
  @UuidArrayField({
    optional: true,
    maxItems: 50,
    description: 'Members of the space; 422 naming the field otherwise.',
  })
  steward_ids?: string[];

  @IntField({
    optional: true,
    nullable: true,
    min: 1,
    max: 5_256_000,
    description: 'Maximum age of the data in minutes (up to ten years); null for none.',
  })
  sla_freshness_minutes?: number | null;

  @JsonObjectField({
    optional: true,
    description: 'Free JSON object (connector sync keeps table columns under `schema`).',
  })
  attributes?: Record<string, unknown>;

  @Transform(cleanList)
  @StringArrayField({
    optional: true,
    maxItems: 100,
    itemMax: 200,
    description: 'AI systems: the event types that are logged.',
  })
  logging_event_types?: string[];

  @DateTimeField({
    optional: true,
    nullable: true,
    description:
      'AI systems: when the logging was last reviewed. Any offset is accepted; stored and answered in UTC.',
  })
  logging_last_reviewed?: Date | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 20_000,
    description: 'AI systems: notes on the logging.',
  })
  logging_notes?: string | null;
}

/**
 * Every field optional; only those given change. `owner_ids`/`steward_ids` replace the whole set. Only
 * `description` is create's as is: create documents the others for a new product (examples, the default
 * type, the uniqueness rule), update what a change does.
 */
export class UpdateProductDto extends UpdateType(CreateProductDto, ['description'] as const) {
  @TextField({ optional: true, max: 200 })
  name?: string;

  @EnumField(PRODUCT_TYPES, { optional: true, enumName: 'ProductType' })
  product_type?: string;

  @StringField({ optional: true, nullable: true, max: 200 })
  domain?: string | null;

  @Transform(cleanList)
  @StringArrayField({ optional: true, maxItems: 50, itemMax: 100 })
  tags?: string[];

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'A live criticality level name; null clears it.',
  })
  criticality?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'A live sensitivity level name; null clears it.',
  })
  sensitivity?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description: 'A live maintenance status slug; null clears it.',
  })
  maintenance_status?: string | null;

  @Transform(uniqueIds)
  @UuidArrayField({ optional: true, maxItems: 50, description: 'Replaces the owners.' })
  owner_ids?: string[];

  @Transform(uniqueIds)
  @UuidArrayField({ optional: true, maxItems: 50, description: 'Replaces the stewards.' })
  steward_ids?: string[];

  @IntField({ optional: true, nullable: true, min: 1, max: 5_256_000 })
  sla_freshness_minutes?: number | null;

  @JsonObjectField({ optional: true, description: 'Replaces the whole object.' })
  attributes?: Record<string, unknown>;

  @Transform(cleanList)
  @StringArrayField({ optional: true, maxItems: 100, itemMax: 200 })
  logging_event_types?: string[];

  @DateTimeField({ optional: true, nullable: true })
  logging_last_reviewed?: Date | null;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  logging_notes?: string | null;
}

export class ListProductsQuery extends PageQuery {
  @StringField({
    optional: true,
    max: 200,
    description: 'Part of the name or description (case-insensitive).',
  })
  q?: string;

  @StringField({ optional: true, max: 100, description: 'Products carrying this tag (exact).' })
  tag?: string;

  @UuidField({ optional: true, description: 'Products this user owns.' })
  owner_id?: string;

  @EnumField(PRODUCT_TYPES, { optional: true, enumName: 'ProductType' })
  product_type?: string;

  @StringField({
    optional: true,
    max: 100,
    description: 'Products at this criticality level, by name (case-insensitive; deleted levels match too).',
  })
  criticality?: string;
}

export class ProductParams extends SlugParams {
  @UuidField()
  product_id: string;
}
