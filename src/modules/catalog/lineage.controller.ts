import { SlugParams } from '../../common/http/slug-params.dto';

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';

import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';

import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import {
  CreateLineageEdgeDto,
  LineageEdgeCreatedResponse,
  LineageEdgeParams,
  LineageGraphResponse,
  LineageQuery,
} from './dto/lineage.dto';

import { ProductParams } from './dto/product-requests.dto';
import { LineageService } from './lineage.service';

@ApiTags('Lineage')
@Controller('catalog/spaces/:slug')
export class LineageController {
  constructor(private readonly lineage: LineageService) {}

  @Post('lineage')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createLineageEdge',
    summary: 'Record that data flows from one product into another (edit access)',
    description:
      'Both products must be in the space (422 naming the field otherwise). An edge that exists already answers 409, ' +
      'and so does one that would close a cycle, including a product feeding itself.',
  })
  @ApiCreatedResponse({ type: LineageEdgeCreatedResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateLineageEdgeDto,
  ): Promise<LineageEdgeCreatedResponse> {
    return this.lineage.addEdge(actor, access, dto);
  }

  @Delete('lineage/:upstream_id/:downstream_id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteLineageEdge',
    summary: 'Remove a lineage edge (edit access)',
    description:
      'Removes the edge from `upstream_id` to `downstream_id`; 404 when the space has no such edge.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(422)
  async remove(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: LineageEdgeParams,
  ): Promise<void> {
    await this.lineage.removeEdge(actor, access, params.upstream_id, params.downstream_id);
  }

  @Get('products/:product_id/lineage')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getProductLineage',
    summary: 'The lineage graph around a product',
    description:
      'Walks up to `depth` hops (1 to 20, default 3) `upstream`, `downstream` or `both` (default). Nodes carry their shortest ' +
      'distance in hops from the product, which is itself a node at depth 0; for `both`, upstream and downstream distances are ' +
      'both positive. `edges` holds every edge between two returned nodes.',
  })
  @ApiOkResponse({ type: LineageGraphResponse })
  @ApiProblems(422)
  graph(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
    @Query() query: LineageQuery,
  ): Promise<LineageGraphResponse> {
    return this.lineage.graph(actor, access, params.product_id, query);
  }
}
