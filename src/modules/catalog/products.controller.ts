import { SlugParams } from '../../common/http/slug-params.dto';

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';

import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';

import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { PageOf } from '../../common/http/page.dto';

import type { Page } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import {
  CreateProductDto,
  ListProductsQuery,
  ProductParams,
  UpdateProductDto,
} from './dto/product-requests.dto';
import { ProductResponse } from './dto/product-responses.dto';

import { ProductsService } from './products.service';
import { ClaimsInTransaction } from '../../platform/idempotency/claims-in-transaction.decorator';

@ApiTags('Data products')
@Controller('catalog/spaces/:slug/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @ClaimsInTransaction()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createProduct',
    summary: 'Create a data product (edit access)',
    description:
      'Names are unique in the space, compared case-insensitively (409). `criticality` and `sensitivity` name live levels of the space, ' +
      '`maintenance_status` the slug of a live status, and `owner_ids`/`steward_ids` members of the space; anything else answers 422 ' +
      'naming every invalid field. Timestamps with any offset are stored in UTC.',
  })
  @ApiCreatedResponse({ type: ProductResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateProductDto,
  ): Promise<ProductResponse> {
    return this.products.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listProducts',
    summary: 'List the data products of a space',
    description:
      'Ordered by name (case-insensitive). Filters combine with AND: `q` (part of the name or description), `tag` (exact), ' +
      '`owner_id`, `product_type`, `criticality` (level name). `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(ProductResponse) })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListProductsQuery,
  ): Promise<Page<ProductResponse>> {
    return this.products.list(actor, access, query);
  }

  @Get(':product_id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getProduct',
    summary: 'Get a data product',
    description:
      'One data product of the space with its owners, stewards, criticality, sensitivity and attributes; any member may read it.',
  })
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblems(422)
  get(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
  ): Promise<ProductResponse> {
    return this.products.get(actor, access, params.product_id);
  }

  @Patch(':product_id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateProduct',
    summary: 'Update a data product (edit access)',
    description:
      'Only the fields given change; null clears a nullable field. `owner_ids`/`steward_ids` replace the whole set. ' +
      'A soft-deleted metadata value the product already carries may be sent back unchanged, but cannot be chosen anew (422).',
  })
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblems(409, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
    @Body() dto: UpdateProductDto,
  ): Promise<ProductResponse> {
    return this.products.update(actor, access, params.product_id, dto);
  }

  @Delete(':product_id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteProduct',
    summary: 'Delete a data product (edit access)',
    description: 'Its governance roles, lineage edges and access requests go with it.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
  ): Promise<void> {
    await this.products.delete(actor, access, params.product_id);
  }
}
