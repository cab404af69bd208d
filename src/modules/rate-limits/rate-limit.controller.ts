import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/public.decorator';
import { RateLimitNotCounted } from '../../common/http/rate-limit.decorators';
import { RateLimitStatusResponse } from './dto/rate-limit-responses.dto';
import { CurrentRateLimit, RateLimitSnapshot } from '../../platform/rate-limit/rate-limit-snapshot';
import { toRateLimitStatusResponse } from './rate-limit.mapper';

@ApiTags('Rate limits')
@Controller('rate-limit')
export class RateLimitController {
  @Get()
  @Public()
  @RateLimitNotCounted()
  @ApiOperation({
    operationId: 'getRateLimitStatus',
    summary: 'Show my rate limits and what is left',
    description:
      'Open to every caller, signed in or not, and never counted or refused: it reports the budget of whoever asks. ' +
      'Requests are counted per API key (by the key’s `rate_limit_tier`), else per signed-in user (tier `RATE_LIMIT_USER_TIER`, default `premium`), ' +
      'else per client address (tier `RATE_LIMIT_ANON_TIER`, default `standard`), in two windows: standard 60/minute and 1000/hour, premium 300 and 10000, internal 1000 and 50000. ' +
      'A request must fit both, and one refused by either uses neither. ' +
      'Windows are fixed and aligned to the clock: the minute window resets at the start of each minute, the hour window at the start of each hour (a sliding window is not used). ' +
      'Some routes add a stricter limit of their own per caller (for example 30 per minute for search), shown in their `x-rate-limit` extension. ' +
      'Every limited response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds) for the window closest to running out ' +
      '(lowest remaining to limit ratio; the minute window on a tie), and the IETF `RateLimit-Policy` and `RateLimit` fields; a 429 adds `Retry-After`. ' +
      '`/health`, `/metrics`, `/auth/token` and `/auth/refresh` are exempt and carry none.',
  })
  @ApiOkResponse({ type: RateLimitStatusResponse })
  status(@CurrentRateLimit() snapshot: RateLimitSnapshot | undefined): RateLimitStatusResponse {
    // The global RateLimitGuard always leaves a snapshot on this route.
    if (!snapshot) throw new Error('RateLimitGuard did not run for GET /rate-limit.');
    return toRateLimitStatusResponse(snapshot);
  }
}
