import { ApiProperty } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  EnumField,
  NestedField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { CONNECTOR_TYPES } from '../entities/connector.entity';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

export class ConnectorConfigDto {
  @StringField({
    min: 1,
    max: 2_000,
    description:
      'A `postgres://user:password@host:port/database` URL (`sslmode` disable, require or verify-full). Write-only: ' +
      'sealed with AES-256-GCM and never returned. Its host follows the outbound-target policy of URL fields ' +
      '(user and password are required here, unlike there): ' +
      OUTBOUND_POLICY_NOTE,
    example: 'postgres://reader:secret@db.example.com:5432/sales?sslmode=require',
  })
  connection_string: string;
}

export class CreateConnectorDto {
  @TextField({ max: 200 })
  name: string;

  @EnumField(CONNECTOR_TYPES, { enumName: 'ConnectorType', description: 'Only `postgresql` for now.' })
  connector_type: string;

  @UuidField({ optional: true, nullable: true, description: 'A source system of the space (422 otherwise).' })
  source_system_id?: string | null;

  @NestedField(() => ConnectorConfigDto)
  config: ConnectorConfigDto;
}

export class ConnectorParams extends SlugParams {
  @UuidField()
  connector_id: string;
}

export class ConnectorConfigResponse {
  @ApiProperty({ description: 'Always true: the connection string is stored, sealed, and never returned.' })
  connection_string_set: boolean;

  @ApiProperty({ description: 'The host of the connection string (no credentials).' })
  host: string;

  @ApiProperty({ type: 'integer' })
  port: number;

  @ApiProperty()
  database: string;
}

export class ConnectorResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: CONNECTOR_TYPES, enumName: 'ConnectorType' })
  connector_type: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  source_system_id: string | null;

  @ApiProperty({ type: ConnectorConfigResponse })
  config: ConnectorConfigResponse;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_tested_at: string | null;

  @ApiProperty({ type: String, nullable: true, enum: ['succeeded', 'failed'] })
  last_test_status: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_synced_at: string | null;

  @ApiProperty({ type: String, nullable: true, enum: ['succeeded', 'failed'] })
  last_sync_status: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the last test or sync failed.' })
  last_error: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class ConnectorTestResponse {
  @ApiProperty()
  success: boolean;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ type: 'integer', description: 'Time to connect and answer, in milliseconds.' })
  latency_ms: number;

  @ApiProperty({ type: String, nullable: true, description: 'The server version, when reached.' })
  server_version: string | null;
}

export class ConnectorSyncResponse {
  @ApiProperty({ enum: ['succeeded', 'failed'] })
  status: string;

  @ApiProperty({ type: 'integer' })
  products_created: number;

  @ApiProperty({ type: 'integer' })
  products_updated: number;

  @ApiProperty({ type: 'integer', description: 'Tables (and views) read from the source.' })
  tables_found: number;

  @ApiProperty({ type: String, nullable: true, description: 'Why the sync failed.' })
  error: string | null;
}

export class CreateSourceSystemDto {
  @TextField({ max: 200, description: 'Unique in the space, compared case-insensitively (409).' })
  name: string;

  @TextField({ max: 100, description: 'Free text, for example `postgresql`, `erp`, `crm`.', example: 'erp' })
  system_type: string;

  @StringField({ optional: true, nullable: true, max: 5_000 })
  description?: string | null;
}

export class SourceSystemParams extends SlugParams {
  @UuidField()
  id: string;
}

export class SourceSystemResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  system_type: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: 'integer', description: 'Connectors linked to it.' })
  connector_count: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}
