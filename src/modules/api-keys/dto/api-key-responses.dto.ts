import { ApiProperty } from '@nestjs/swagger';
import { RATE_LIMIT_TIERS } from '../../../config/app.config';

export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'CI pipeline' })
  name: string;

  @ApiProperty({
    description: 'The first characters of the key, to recognise it by.',
    example: 'vk_3fQx9LbA',
  })
  prefix: string;

  @ApiProperty({
    format: 'uuid',
    description: 'The one instance the key reaches: that of the token that created it.',
  })
  instance_id: string;

  @ApiProperty({ enum: RATE_LIMIT_TIERS, enumName: 'RateLimitTier' })
  rate_limit_tier: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Last use, to the minute (it is refreshed at most once a minute).',
  })
  last_used_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({
    description:
      'The secret, shown only in this response: send it as `Authorization: Bearer <key>`. Only its hash is kept.',
    example: 'vk_3fQx9LbA…',
  })
  key: string;
}
