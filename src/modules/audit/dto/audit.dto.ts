import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { DateTimeField, StringField, UuidField } from '../../../common/validation/field.decorators';

export class ListAuditLogQuery extends PageQuery {
  @UuidField({ optional: true, description: 'Who acted.' })
  actor_id?: string;

  @StringField({
    optional: true,
    max: 100,
    description: 'Exact action, e.g. `auth.login`, or a prefix ending in `.*`, e.g. `auth.*`.',
  })
  action?: string;

  @StringField({ optional: true, max: 100 })
  resource_type?: string;

  @StringField({ optional: true, max: 200 })
  resource_id?: string;

  @UuidField({ optional: true })
  space_id?: string;

  @DateTimeField({ optional: true, description: 'Entries at or after this time.' })
  since?: Date;

  @DateTimeField({ optional: true, description: 'Entries before this time.' })
  until?: Date;
}

export class AuditEntryResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'auth.login' }) action: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) actor_id: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The superadmin behind an impersonation token.',
  })
  impersonator_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: '`session:<id>` or `api_key:<id>`.' })
  credential: string | null;
  @ApiProperty() resource_type: string;
  @ApiProperty({ type: String, nullable: true }) resource_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) space_id: string | null;
  @ApiProperty({ type: String, nullable: true }) ip: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) details: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}
