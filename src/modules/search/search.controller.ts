import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { EndpointRateLimit } from '../../common/http/rate-limit.decorators';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SearchDto, SearchResponse } from './dto/search.dto';
import { RANK_WINDOW } from './search.queries';
import { SearchService } from './search.service';

@ApiTags('Search')
@Controller('search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Post()
  @Authenticated()
  @HttpCode(200)
  @EndpointRateLimit(30)
  @ApiOperation({
    operationId: 'search',
    summary: 'Search products, standards pages, risks, policies, incidents and tickets (30 per minute)',
    description:
      'Only items in spaces the caller is a member of (every space for a superadmin), filtered inside the query, so ' +
      '`total` never counts what the caller cannot read; archived policies, and incidents of a space whose ' +
      '`quality.incidents` feature is off, are left out as their own lists leave them out; standards pages in draft ' +
      'only for those who may edit the space. ' +
      "**keyword**: PostgreSQL full-text search with the 'simple' configuration (no stemming, no stop words) over " +
      'a weighted document per item (title or name A, description B, other text C), ranked by ts_rank_cd; the last ' +
      `word also matches as a prefix. When more than ${RANK_WINDOW} items match, the ${RANK_WINDOW} ranked are those whose title or ` +
      'name holds the whole query first, then others (`total` still counts every match). **semantic**: nearest neighbours by cosine similarity in the embedding index, ' +
      'which holds products and standards pages (other types are keyword-only); `total` is the number of ' +
      'neighbours found. **hybrid** (default): both lists (each cut to `limit`) merged by reciprocal rank fusion, ' +
      'k = 60; `total` counts each matching item once. When embeddings are disabled or the provider fails, ' +
      'semantic answers no items and hybrid answers exactly what keyword answers. Equal scores list by type ' +
      "(product, standard_page, risk, policy, incident, ticket), then id. An answer may come from the server's " +
      'cache of recent answers, which is checked against the database on every call: it always reflects every ' +
      'write committed before the request.',
  })
  @ApiOkResponse({ type: SearchResponse })
  @ApiProblems(404, 422, 429)
  run(@CurrentActor() actor: Actor, @Body() dto: SearchDto): Promise<SearchResponse> {
    return this.search.search(actor, dto);
  }
}
