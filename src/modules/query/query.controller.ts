import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { EndpointRateLimit } from '../../common/http/rate-limit.decorators';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { ExecuteQueryDto, QueryResultResponse } from './dto/visual-query.dto';
import { QueryService } from './query.service';

@ApiTags('Visual query')
@Controller('query')
export class QueryController {
  constructor(private readonly queries: QueryService) {}

  @Post('execute')
  @Authenticated()
  @HttpCode(200)
  @EndpointRateLimit(30)
  @ApiOperation({
    operationId: 'executeVisualQuery',
    summary: "Run a visual query on a connector's database (edit access; 30 per minute)",
    description:
      'Columns, filters (AND), group_by with aggregations, order_by and limit (default 100, max 1,000), or a pivot: one ' +
      'row per distinct combination of `pivot.rows`, one column per distinct non-null value of `pivot.column` (as text, ' +
      'sorted by code point; at most 50 after the filters, else 422), each cell the aggregate of `pivot.value` over those ' +
      'rows, null where there are none; pivot rows are sorted by `pivot.rows` unless `order_by` says otherwise. Without ' +
      "`order_by`, other answers come in the source's order. Table and column names are resolved against the source's own " +
      "catalog and quoted (a name it does not hold is a 422 naming the field); a table's description is cached for 30 s per " +
      'connector, so a column added meanwhile may be unknown that long. Values are bound parameters. The query runs ' +
      "in a read-only transaction with a 10 s statement timeout, on one of the connector's warm connections " +
      '(CONNECTOR_POOL_SIZE per server process; the session is reset with DISCARD ALL after every use, so nothing one ' +
      'query or quality check sets is seen by the next). A value the column type cannot take is a 422; an ' +
      'unreachable source, a timeout or another failure of the source is a 502 with its reason. Edit access to the space ' +
      'that owns the connector: viewers 403, non-members 404 (superadmins may query any space); a connector of another ' +
      'space is 404.',
  })
  @ApiOkResponse({ type: QueryResultResponse })
  @ApiProblems(403, 404, 422, 429, 502)
  execute(@CurrentActor() actor: Actor, @Body() dto: ExecuteQueryDto): Promise<QueryResultResponse> {
    return this.queries.execute(actor, dto);
  }
}
