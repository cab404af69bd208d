import { ApiProperty } from '@nestjs/swagger';
import { RATE_LIMIT_TIERS } from '../../../config/app.config';
import { BUCKET_KINDS } from '../../../platform/rate-limit/rate-limit-tiers';

export class RateLimitWindowResponse {
  @ApiProperty({ enum: ['minute', 'hour'], description: 'The window: a wall-clock minute or hour.' })
  window: string;

  @ApiProperty({ type: 'integer', example: 60 })
  window_seconds: number;

  @ApiProperty({ type: 'integer', description: 'Requests allowed in the window.', example: 300 })
  limit: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Requests left in the current window; null while limits are not enforced.',
    example: 298,
  })
  remaining: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Unix time (seconds) when the current window ends; null while limits are not enforced.',
    example: 1795312080,
  })
  reset: number | null;
}

export class RateLimitStatusResponse {
  @ApiProperty({ enum: RATE_LIMIT_TIERS, description: 'The tier whose limits apply to this caller.' })
  tier: string;

  @ApiProperty({
    enum: BUCKET_KINDS,
    description: 'Whose budget is used: the API key, the signed-in user, or the client address.',
  })
  counted_per: string;

  @ApiProperty({
    description:
      'False when requests are not being limited: rate limiting is switched off, or the shared counter store is unreachable (requests are then served, fail open).',
  })
  enforced: boolean;

  @ApiProperty({ type: RateLimitWindowResponse, isArray: true })
  windows: RateLimitWindowResponse[];
}
