import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { SendsEncodedJson } from '../../common/http/encoded-json.decorator';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import {
  CreateRiskDto,
  HeatMapQuery,
  HeatMapResponse,
  LinkProductsDto,
  ListRisksQuery,
  RiskPageResponse,
  RiskPathParams,
  RiskProductPathParams,
  RiskResponse,
  RiskTemplateResponse,
  UpdateRiskDto,
} from './dto/risk.dto';
import { RisksService } from './risks.service';

@ApiTags('Risk register')
@Controller('catalog/spaces/:slug/risk-register')
export class RisksController {
  constructor(private readonly risks: RisksService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createRisk',
    summary: 'Add a risk to the register (edit access)',
    description:
      'A new risk is `identified`. `score` = likelihood level x impact level (1 to 25); `tier` follows the score: ' +
      '`low` 1-4, `medium` 5-9, `high` 10-16, `critical` 17-25. Emits `risk.created`.',
  })
  @ApiCreatedResponse({ type: RiskResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateRiskDto,
  ): Promise<RiskResponse> {
    return this.risks.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listRisks',
    summary: 'List the risks of the register',
    description:
      'Newest first. Filters combine with AND: `category`, `status`, `tier`, `product_id` (linked to that product). ' +
      '`{items, total}` with `limit` (default 50, at most 100) and `offset`.',
  })
  @ApiOkResponse({ type: RiskPageResponse })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListRisksQuery,
  ): Promise<RiskPageResponse> {
    return this.risks.list(access, query);
  }

  @Get('heat-map')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getRiskHeatMap',
    summary: 'Risks bucketed by likelihood and impact',
    description:
      'All 25 cells, empty ones with `count` 0, each with its count and the ids of its risks (closed risks ' +
      'included). So that the map stays small over a large register, each cell answers at most `limit` ids ' +
      '(default 10, at most 100; 0 for counts only), in id order from `offset`; `count` is always the whole cell. ' +
      'To page through one cell, name it with `likelihood` and `impact` (both or neither, else 422): the answer is ' +
      'then that cell alone.',
  })
  @ApiOkResponse({ type: HeatMapResponse })
  @ApiProblems(422)
  @SendsEncodedJson()
  heatMap(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: HeatMapQuery,
  ): Promise<string> {
    // The database encodes the answer: the JSON text goes out as it is, with its headers in one write.
    return this.risks.heatMapDocument(access, query);
  }

  @Get('templates')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listRiskTemplates',
    summary: 'Pre-built risk templates, one or more per category',
    description: 'Ready-made risks to start the register from, one or more per risk category; read-only.',
  })
  @ApiOkResponse({ type: RiskTemplateResponse, isArray: true })
  templates(@Param() _params: SlugParams): RiskTemplateResponse[] {
    return this.risks.templates();
  }

  @Get(':id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getRisk',
    summary: 'Get a risk',
    description: 'One risk of the register with its likelihood, impact, score, tier and owner.',
  })
  @ApiOkResponse({ type: RiskResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: RiskPathParams): Promise<RiskResponse> {
    return this.risks.get(access, params.id);
  }

  @Put(':id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateRisk',
    summary: 'Update a risk (edit access)',
    description:
      'A partial update: any subset of the create fields plus `status`, `owner_id` (a member of the space) and ' +
      '`review_date`; fields left out are kept. Score and tier are recomputed. Emits `risk.updated` when something changed.',
  })
  @ApiOkResponse({ type: RiskResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: RiskPathParams,
    @Body() dto: UpdateRiskDto,
  ): Promise<RiskResponse> {
    return this.risks.update(actor, access, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('admin')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteRisk',
    summary: 'Remove a risk (Space Admin)',
    description: 'Emits `risk.deleted`.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(422)
  delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: RiskPathParams,
  ): Promise<void> {
    return this.risks.delete(actor, access, params.id);
  }

  @Post(':id/link-products')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'linkRiskProducts',
    summary: 'Link products to a risk (edit access)',
    description:
      'Adds links; products already linked stay linked. Every id must name a product of the same space (422 naming the ' +
      'others, nothing linked). Answers the risk with all its `product_ids`.',
  })
  @ApiOkResponse({ type: RiskResponse })
  @ApiProblems(422)
  link(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: RiskPathParams,
    @Body() dto: LinkProductsDto,
  ): Promise<RiskResponse> {
    return this.risks.linkProducts(actor, access, params.id, dto);
  }

  @Delete(':id/products/:pid')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'unlinkRiskProduct',
    summary: 'Unlink a product from a risk (edit access)',
    description: '404 when the risk does not exist or the product is not linked to it.',
  })
  @ApiNoContentResponse({ description: 'Unlinked.' })
  @ApiProblems(422)
  unlink(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: RiskProductPathParams,
  ): Promise<void> {
    return this.risks.unlinkProduct(actor, access, params.id, params.pid);
  }
}
