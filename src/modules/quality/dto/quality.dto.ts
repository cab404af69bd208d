import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  BooleanField,
  EnumField,
  JsonObjectField,
  NumberField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { LinkedTicketResponse } from '../../tickets/dto/ticket.dto';
import { ALERT_STATUSES, ALERT_TYPES } from '../entities/alert.entity';
import { CHECK_TYPES, RUN_STATUSES, SEVERITIES } from '../entities/check.entity';
import { INCIDENT_STATUSES } from '../entities/incident.entity';

const CONFIG_DOC =
  'Per `check_type`: `sql_assertion` {sql} (rows returned are failures); `row_count` {table, min?, max?, approximate?} ' +
  '(`approximate: true` reads the catalog estimate `pg_class.reltuples` instead of counting); `null_rate` {table, column, max_rate} ' +
  "(a fraction 0 to 1); `freshness` {table, column, max_age_minutes?} (null or absent: the product's `sla_freshness_minutes`; " +
  'both null: passes with a note); `schema` {table, expected_columns: [name | {name, type?, nullable?}], allow_extra_columns?}; ' +
  '`custom`: free-form, results are pushed. Every runnable type also takes `timeout_seconds` (1 to 10, default 10). ' +
  "`table` is `table` (on the connecting role's search_path), `schema.table`, or with double-quoted parts for exact names " +
  '(`public."Odd Name"`); `column` is a column name. Bare names match exactly, else case-insensitively when unambiguous. Both ' +
  "are resolved against the source's own catalog and quoted, never spliced: when the connector can be reached on create or " +
  'update, a table or column the source does not have is a 422 on `config.table`/`config.column`; one that disappears later ' +
  'makes runs `error` (a `schema` check: `failed`, as schema drift). Unknown settings are 422.';

// Checks.

export class CreateCheckDto {
  @UuidField({ description: 'A product of the space (422 otherwise).' })
  product_id: string;

  @TextField({ max: 200 })
  name: string;

  @StringField({ optional: true, nullable: true, max: 5_000 })
  description?: string | null;

  @EnumField(CHECK_TYPES, { enumName: 'CheckType' })
  check_type: string;

  @EnumField(SEVERITIES, {
    enumName: 'Severity',
    description: 'The severity of the alerts its failures open.',
  })
  severity: string;

  @JsonObjectField({ description: CONFIG_DOC })
  config: Record<string, unknown>;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'A connector of the space (422 otherwise); runs query its database. Not needed for pushed results.',
  })
  connector_id?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 100,
    description:
      'A five-field cron expression (UTC), e.g. `*/15 * * * *`; 422 when invalid. Not for `custom` checks.',
    example: '0 * * * *',
  })
  schedule_cron?: string | null;

  @BooleanField({ optional: true, default: true, description: 'Disabled checks are not scheduled.' })
  is_enabled?: boolean;
}

/**
 * Only the fields given change; the product and the check type never do. The others are declared here:
 * on create they document what is asked for the first time (and `is_enabled` a default).
 */
export class UpdateCheckDto extends UpdateType(CreateCheckDto, ['name', 'description'] as const) {
  @EnumField(SEVERITIES, { optional: true, enumName: 'Severity' })
  severity?: string;

  @JsonObjectField({ optional: true, description: `Replaces the whole configuration. ${CONFIG_DOC}` })
  config?: Record<string, unknown>;

  @UuidField({ optional: true, nullable: true })
  connector_id?: string | null;

  @StringField({ optional: true, nullable: true, max: 100 })
  schedule_cron?: string | null;

  @BooleanField({ optional: true })
  is_enabled?: boolean;
}

export class ListChecksQuery extends PageQuery {
  @UuidField({ optional: true })
  product_id?: string;

  @EnumField(CHECK_TYPES, { optional: true, enumName: 'CheckType' })
  check_type?: string;
}

export class CheckPathParams extends SlugParams {
  @UuidField()
  check_id: string;
}

export class CheckIdParams {
  @UuidField()
  check_id: string;
}

export class PushResultDto {
  @BooleanField()
  passed: boolean;

  @NumberField({ optional: true, nullable: true })
  observed_value?: number | null;

  @StringField({ optional: true, nullable: true, max: 5_000 })
  message?: string | null;
}

export class CheckResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty({ format: 'uuid' }) product_id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) connector_id: string | null;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: CHECK_TYPES, enumName: 'CheckType' }) check_type: string;
  @ApiProperty({ enum: SEVERITIES, enumName: 'Severity' }) severity: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) config: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) schedule_cron: string | null;
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The next scheduled run.' })
  next_run_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_run_at: string | null;
  @ApiProperty({ type: String, nullable: true, enum: RUN_STATUSES }) last_status: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class RunResultResponse {
  @ApiProperty({ format: 'uuid' }) run_id: string;
  @ApiProperty({ enum: RUN_STATUSES, enumName: 'RunStatus' }) status: string;
  @ApiProperty({ type: Number, nullable: true }) observed_value: number | null;
  @ApiProperty({ type: String, nullable: true }) message: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The alert a failed run opened.',
  })
  alert_id: string | null;
}

export class CheckRunResponse extends RunResultResponse {
  @ApiProperty({ format: 'uuid' }) check_id: string;
  @ApiProperty({ enum: ['manual', 'schedule', 'pushed'] }) source: string;
  @ApiProperty({ type: 'integer', nullable: true }) duration_ms: number | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

// Alerts.

export class CreateAlertDto {
  @UuidField({ description: 'A product of the space (422 otherwise).' })
  product_id: string;

  @EnumField(ALERT_TYPES, { enumName: 'AlertType' })
  alert_type: string;

  @EnumField(SEVERITIES, { enumName: 'Severity' })
  severity: string;

  @TextField({ max: 5_000 })
  message: string;

  @JsonObjectField({ optional: true })
  metadata?: Record<string, unknown>;
}

export class ListAlertsQuery extends PageQuery {
  @EnumField(ALERT_STATUSES, { optional: true, enumName: 'AlertStatus' })
  status?: string;

  @EnumField(SEVERITIES, { optional: true, enumName: 'Severity' })
  severity?: string;

  @EnumField(ALERT_TYPES, { optional: true, enumName: 'AlertType' })
  alert_type?: string;

  @UuidField({ optional: true })
  product_id?: string;

  @UuidField({ optional: true })
  incident_id?: string;

  @UuidField({ optional: true })
  check_id?: string;
}

export class AlertPathParams extends SlugParams {
  @UuidField()
  alert_id: string;
}

export class AlertResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty({ enum: ALERT_TYPES, enumName: 'AlertType' }) alert_type: string;
  @ApiProperty({ enum: SEVERITIES, enumName: 'Severity' }) severity: string;
  @ApiProperty({ enum: ALERT_STATUSES, enumName: 'AlertStatus' }) status: string;
  @ApiProperty({ format: 'uuid' }) product_id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) check_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) run_id: string | null;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'uuid', description: 'Every alert belongs to exactly one incident.' })
  incident_id: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) acknowledged_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

// Incidents.

export class ListIncidentsQuery extends PageQuery {
  @EnumField(INCIDENT_STATUSES, { optional: true, enumName: 'IncidentStatus' })
  status?: string;
}

export class IncidentPathParams extends SlugParams {
  @UuidField()
  incident_id: string;
}

export class UpdateIncidentDto {
  @StringField({ optional: true, nullable: true, max: 20_000 })
  root_cause?: string | null;

  @EnumField(INCIDENT_STATUSES, { optional: true, enumName: 'IncidentStatus' })
  status?: string;

  @EnumField(SEVERITIES, { optional: true, enumName: 'Severity' })
  severity?: string;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'A product of the space (422 otherwise). Set, it stays the root as alerts join; null hands it back to correlation.',
  })
  root_product_id?: string | null;

  @StringField({ optional: true, nullable: true, max: 20_000 })
  description?: string | null;
}

export class LinkTicketDto {
  @UuidField({ description: 'A ticket of the same space (422 otherwise).' })
  ticket_id: string;
}

export class IncidentResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() title: string;
  @ApiProperty({ enum: INCIDENT_STATUSES, enumName: 'IncidentStatus' }) status: string;
  @ApiProperty({ enum: SEVERITIES, enumName: 'Severity' }) severity: string;
  @ApiProperty({ type: 'integer' }) alert_count: number;
  @ApiProperty({ type: String, nullable: true }) root_cause: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) root_product_id: string | null;
  @ApiProperty({
    type: String,
    isArray: true,
    description:
      'Names of the products downstream of the root (the root excluded), refreshed as alerts join.',
  })
  blast_radius_snapshot: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolved_at: string | null;
}

export class ProductRefResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

export class IncidentDetailResponse extends IncidentResponse {
  @ApiProperty({ type: AlertResponse, isArray: true, description: 'Oldest first.' }) alerts: AlertResponse[];
  @ApiProperty({
    type: ProductRefResponse,
    isArray: true,
    description: 'The products of the blast radius that still exist, by name.',
  })
  blast_radius: ProductRefResponse[];
  @ApiProperty({ type: LinkedTicketResponse, isArray: true }) tickets: LinkedTicketResponse[];
}

export class TimelineEntryResponse {
  @ApiProperty({ enum: ['alert', 'status_change'] }) entry_type: string;
  @ApiProperty({ format: 'date-time', description: 'When the alert joined, or the status changed.' })
  added_at: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) alert_id: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ALERT_TYPES }) alert_type: string | null;
  @ApiProperty({ type: String, nullable: true, enum: SEVERITIES }) severity: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) product_id: string | null;
  @ApiProperty({ type: String, nullable: true }) message: string | null;
  @ApiProperty({ type: String, nullable: true, enum: INCIDENT_STATUSES }) from_status: string | null;
  @ApiProperty({ type: String, nullable: true, enum: INCIDENT_STATUSES }) to_status: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) changed_by: string | null;
}

export class NotifyDownstreamResponse {
  @ApiProperty({ type: 'integer', description: 'Distinct users notified (each once).' })
  notified_users: number;
  @ApiProperty({ type: 'integer', description: 'Products in the blast radius.' }) affected_products: number;
}
