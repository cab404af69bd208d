import { ApiProperty } from '@nestjs/swagger';
import {
  DateTimeField,
  EnumField,
  QueryIntField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { FEEDBACK_RATINGS } from '../entities/ai-feedback.entity';

/** snake_case AI feature names such as `alert_explain`, `pipeline_authoring`, `search`. */
export const FEATURE_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export class CreateAiFeedbackDto {
  @StringField({
    min: 1,
    max: 100,
    pattern: FEATURE_NAME,
    description: 'The snake_case name of the AI feature, for example `alert_explain`.',
    example: 'alert_explain',
  })
  feature: string;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'The AI log entry of the answer judged (for example `log_id` of an explanation); 422 when none has this id.',
  })
  log_id?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    min: 1,
    max: 200,
    description: "The client's own id of the suggestion judged.",
  })
  suggestion_id?: string | null;

  @EnumField(FEEDBACK_RATINGS, { enumName: 'AiFeedbackRating' })
  rating: string;

  @StringField({ optional: true, nullable: true, max: 5_000 })
  comment?: string | null;
}

/** Filters shared by the list, the statistics and the export. */
export class AiFeedbackFilterQuery {
  @StringField({ optional: true, max: 100, pattern: FEATURE_NAME, description: 'Only this feature.' })
  feature?: string;

  @EnumField(FEEDBACK_RATINGS, {
    optional: true,
    enumName: 'AiFeedbackRating',
    description: 'Only this rating.',
  })
  rating?: string;

  @UuidField({ optional: true, description: 'Only feedback given by this user.' })
  user_id?: string;

  @DateTimeField({ optional: true, description: 'Only feedback given at or after this instant.' })
  since?: Date;

  @DateTimeField({ optional: true, description: 'Only feedback given before this instant.' })
  until?: Date;
}

export class ListAiFeedbackQuery extends AiFeedbackFilterQuery {
  @QueryIntField({ min: 1, default: 1, description: 'The page, 1-based.' })
  page?: number = 1;

  @QueryIntField({ min: 1, max: 200, default: 50, description: 'Items per page (at most 200).' })
  size?: number = 50;
}

export const EXPORT_FORMATS = ['csv', 'json'] as const;

export class ExportAiFeedbackQuery extends AiFeedbackFilterQuery {
  @EnumField(EXPORT_FORMATS, { optional: true, enumName: 'AiFeedbackExportFormat', default: 'csv' })
  format?: string = 'csv';
}

export class AiFeedbackResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'alert_explain' }) feature: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) log_id: string | null;
  @ApiProperty({ type: String, nullable: true }) suggestion_id: string | null;
  @ApiProperty({ enum: FEEDBACK_RATINGS, enumName: 'AiFeedbackRating' }) rating: string;
  @ApiProperty({ type: String, nullable: true }) comment: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Who gave it.' })
  user_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AiFeedbackPageResponse {
  @ApiProperty({ type: AiFeedbackResponse, isArray: true }) items: AiFeedbackResponse[];
  @ApiProperty({ type: 'integer', description: 'How many items match, across all pages.' }) total: number;
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) size: number;
}

export class AiFeedbackStatsResponse {
  @ApiProperty() feature: string;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) accepted: number;
  @ApiProperty({ type: 'integer' }) rejected: number;
  @ApiProperty({ type: 'integer' }) edited: number;
  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: '(accepted + edited) / total: an edited suggestion was still taken up.',
  })
  acceptance_rate: number;
}
