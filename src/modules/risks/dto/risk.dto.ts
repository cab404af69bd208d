import { ApiProperty } from '@nestjs/swagger';
import { ArrayMinSize } from 'class-validator';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  DateField,
  EnumField,
  QueryIntField,
  StringField,
  TextField,
  UuidArrayField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { IMPACTS, LIKELIHOODS, RISK_CATEGORIES, RISK_STATUSES, RISK_TIERS } from '../risk-scoring';

export class RiskPathParams extends SlugParams {
  @UuidField({ description: 'The risk id.' })
  id: string;
}

export class RiskProductPathParams extends RiskPathParams {
  @UuidField({ description: 'The linked product id.' })
  pid: string;
}

export class CreateRiskDto {
  @TextField({ max: 300 })
  title: string;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  description?: string | null;

  @EnumField(RISK_CATEGORIES, { enumName: 'RiskCategory' })
  category: string;

  @EnumField(LIKELIHOODS, {
    enumName: 'RiskLikelihood',
    description: 'Levels 1 (rare) to 5 (almost_certain).',
  })
  likelihood: string;

  @EnumField(IMPACTS, { enumName: 'RiskImpact', description: 'Levels 1 (negligible) to 5 (severe).' })
  impact: string;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  mitigation_plan?: string | null;
}

/**
 * Any subset of the create fields plus `status`, `owner_id` and `review_date`. `likelihood` and `impact` are
 * declared here: on create they are required and documented with their level scales.
 */
export class UpdateRiskDto extends UpdateType(CreateRiskDto, [
  'title',
  'description',
  'category',
  'mitigation_plan',
] as const) {
  @EnumField(LIKELIHOODS, { optional: true, enumName: 'RiskLikelihood' })
  likelihood?: string;

  @EnumField(IMPACTS, { optional: true, enumName: 'RiskImpact' })
  impact?: string;

  @EnumField(RISK_STATUSES, {
    optional: true,
    enumName: 'RiskStatus',
    description: 'Any status may follow any other (a closed risk can be reopened).',
  })
  status?: string;

  @UuidField({
    optional: true,
    nullable: true,
    description: 'A member of the space (422 otherwise); null clears it.',
  })
  owner_id?: string | null;

  @DateField({ optional: true, nullable: true, description: 'Next review, YYYY-MM-DD; null clears it.' })
  review_date?: string | null;
}

export class ListRisksQuery {
  @EnumField(RISK_CATEGORIES, { optional: true, enumName: 'RiskCategory' })
  category?: string;

  @EnumField(RISK_STATUSES, { optional: true, enumName: 'RiskStatus' })
  status?: string;

  @EnumField(RISK_TIERS, { optional: true, enumName: 'RiskTier' })
  tier?: string;

  @UuidField({ optional: true, description: 'Only risks linked to this product.' })
  product_id?: string;

  @QueryIntField({ min: 1, max: 100, default: 50, description: 'How many risks to return (at most 100).' })
  limit?: number = 50;

  @QueryIntField({ min: 0, default: 0, description: 'How many risks to skip.' })
  offset?: number = 0;
}

export class LinkProductsDto {
  @ArrayMinSize(1)
  @UuidArrayField({ maxItems: 100, description: 'Products of the same space (422 otherwise); at least one.' })
  product_ids: string[];
}

export class RiskResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: RISK_CATEGORIES, enumName: 'RiskCategory' }) category: string;
  @ApiProperty({ enum: LIKELIHOODS, enumName: 'RiskLikelihood' }) likelihood: string;
  @ApiProperty({ enum: IMPACTS, enumName: 'RiskImpact' }) impact: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 25, description: 'likelihood level x impact level' })
  score: number;
  @ApiProperty({
    enum: RISK_TIERS,
    enumName: 'RiskTier',
    description: 'low 1-4, medium 5-9, high 10-16, critical 17-25',
  })
  tier: string;
  @ApiProperty({ enum: RISK_STATUSES, enumName: 'RiskStatus' }) status: string;
  @ApiProperty({ type: String, nullable: true }) mitigation_plan: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) owner_id: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) review_date: string | null;
  @ApiProperty({ type: String, format: 'uuid', isArray: true }) product_ids: string[];
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class RiskPageResponse {
  @ApiProperty({ type: RiskResponse, isArray: true }) items: RiskResponse[];
  @ApiProperty({ type: 'integer', description: 'How many risks match, across all pages.' }) total: number;
}

/** Risk ids a heat-map cell answers unless `limit` says otherwise; `count` is always the whole cell. */
export const HEAT_MAP_IDS_DEFAULT = 10;

export class HeatMapQuery {
  @EnumField(LIKELIHOODS, {
    optional: true,
    enumName: 'RiskLikelihood',
    description: 'With `impact`: answer this one cell only (to page through its risk ids).',
  })
  likelihood?: string;

  @EnumField(IMPACTS, {
    optional: true,
    enumName: 'RiskImpact',
    description: 'With `likelihood`: answer this one cell only (to page through its risk ids).',
  })
  impact?: string;

  @QueryIntField({
    min: 0,
    max: 100,
    default: HEAT_MAP_IDS_DEFAULT,
    description: 'How many risk ids each cell answers (at most 100; 0 for counts only).',
  })
  limit?: number = HEAT_MAP_IDS_DEFAULT;

  @QueryIntField({
    min: 0,
    default: 0,
    description: "How many of each cell's risk ids (in id order) to skip.",
  })
  offset?: number = 0;
}

export class HeatMapCell {
  @ApiProperty({ enum: LIKELIHOODS, enumName: 'RiskLikelihood' }) likelihood: string;
  @ApiProperty({ enum: IMPACTS, enumName: 'RiskImpact' }) impact: string;
  @ApiProperty({ type: 'integer', description: 'All the risks of the cell.' }) count: number;
  @ApiProperty({
    type: String,
    format: 'uuid',
    isArray: true,
    description:
      'The ids of the risks of the cell in id order, from `offset`, at most `limit` of them: all of them when ' +
      '`count` is not larger.',
  })
  risk_ids: string[];
}

export class HeatMapResponse {
  @ApiProperty({
    type: HeatMapCell,
    isArray: true,
    description: 'All 25 cells, likelihood-major, ascending; or the one cell asked for.',
  })
  cells: HeatMapCell[];
}

export class RiskTemplateResponse {
  @ApiProperty() key: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: RISK_CATEGORIES, enumName: 'RiskCategory' }) category: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: LIKELIHOODS, enumName: 'RiskLikelihood' }) likelihood: string;
  @ApiProperty({ enum: IMPACTS, enumName: 'RiskImpact' }) impact: string;
  @ApiProperty() mitigation_plan: string;
}
