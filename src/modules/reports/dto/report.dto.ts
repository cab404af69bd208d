import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  BooleanField,
  EmailArrayField,
  EnumField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { REPORT_FREQUENCIES, REPORT_TYPES } from '../report-schedule';

const RECIPIENTS_DOC = 'Email addresses, 1 to 50 (each must be a valid address: 422).';
const TIMEZONE_DOC =
  'IANA time zone the 08:00 sending time is in (e.g. `Europe/Berlin`); unknown zones are 422.';

export class ReportPathParams extends SlugParams {
  @UuidField({ description: 'The report schedule id.' })
  id: string;
}

export class CreateReportDto {
  @TextField({ max: 200 })
  name: string;

  @EnumField(REPORT_TYPES, { enumName: 'ReportType' })
  report_type: string;

  @EnumField(REPORT_FREQUENCIES, {
    enumName: 'ReportFrequency',
    description: '`daily`, `weekly` (Monday) or `monthly` (day 1), at 08:00 in `timezone`.',
  })
  frequency: string;

  @StringField({ optional: true, max: 64, default: 'UTC', description: TIMEZONE_DOC })
  timezone?: string;

  @EmailArrayField({ minItems: 1, maxItems: 50, description: RECIPIENTS_DOC })
  recipients: string[];

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;
}

/**
 * Only the fields given change. `frequency` is declared here: on create it is required and documented with
 * the sending times; `timezone` and `is_enabled` document defaults that must not apply on update.
 */
export class UpdateReportDto extends UpdateType(CreateReportDto, [
  'name',
  'report_type',
  'recipients',
] as const) {
  @EnumField(REPORT_FREQUENCIES, { optional: true, enumName: 'ReportFrequency' })
  frequency?: string;

  @StringField({ optional: true, max: 64, description: TIMEZONE_DOC })
  timezone?: string;

  @BooleanField({ optional: true })
  is_enabled?: boolean;
}

export class ListReportsQuery extends PageQuery {}

export class ReportResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: REPORT_TYPES, enumName: 'ReportType' }) report_type: string;
  @ApiProperty({ enum: REPORT_FREQUENCIES, enumName: 'ReportFrequency' }) frequency: string;
  @ApiProperty({ example: 'UTC' }) timezone: string;
  @ApiProperty({ type: String, format: 'email', isArray: true }) recipients: string[];
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_sent_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Next scheduled sending; null while disabled.',
  })
  next_run_at: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ReportPageResponse {
  @ApiProperty({ type: ReportResponse, isArray: true }) items: ReportResponse[];
  @ApiProperty({ type: 'integer' }) total: number;
}

export class ReportPreviewResponse {
  @ApiProperty() subject: string;
  @ApiProperty({ format: 'date-time' }) generated_at: string;
  @ApiProperty() text: string;
  @ApiProperty({ description: 'Every value taken from user data is HTML-escaped.' }) html: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The report data; its shape depends on `report_type`.',
  })
  data: Record<string, unknown>;
}

export class ReportSentResponse {
  @ApiProperty({ type: String, format: 'email', isArray: true }) sent_to: string[];
  @ApiProperty({ format: 'date-time' }) generated_at: string;
}
