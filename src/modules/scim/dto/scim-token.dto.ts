import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { DateTimeField, TextField, UuidField } from '../../../common/validation/field.decorators';

export class CreateScimTokenDto {
  @TextField({ max: 100, description: 'A label to recognise the token by.', example: 'Okta provisioning' })
  name: string;

  @DateTimeField({
    optional: true,
    nullable: true,
    description: 'When the token stops working; in the future. Omitted or null: it never expires.',
  })
  expires_at?: Date | null;
}

export class ListScimTokensQuery extends PageQuery {}

export class ScimTokenParams {
  @UuidField()
  token_id: string;
}

export class ScimTokenResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Okta provisioning' })
  name: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Last SCIM request (to the minute).',
  })
  last_used_at: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The superadmin who created it.',
  })
  created_by: string | null;
}

export class CreatedScimTokenResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'The bearer token for the SCIM client; shown only in this answer.' })
  token: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;
}
