import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { PageOf, PageQuery } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { ProductParams } from '../catalog/dto/product-requests.dto';
import { NamespaceMappingListResponse, ReplaceNamespaceMappingsDto } from './dto/namespace-mapping.dto';
import { SchemaChangeResponse } from './dto/schema-change.dto';
import { NamespaceMappingsService } from './namespace-mappings.service';
import { SchemaChangesService } from './schema-changes.service';

const SchemaChangePage = PageOf(SchemaChangeResponse);

@ApiTags('OpenLineage')
@Controller()
export class OpenLineageSettingsController {
  constructor(
    private readonly mappings: NamespaceMappingsService,
    private readonly schemaChanges: SchemaChangesService,
  ) {}

  @Get('spaces/:slug/openlineage/namespaces')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listOpenLineageNamespaces',
    summary: 'The OpenLineage namespaces the space takes events for',
    description: 'By namespace. See `replaceOpenLineageNamespaces`.',
  })
  @ApiOkResponse({ type: NamespaceMappingListResponse })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<NamespaceMappingListResponse> {
    return this.mappings.list(access);
  }

  @Put('spaces/:slug/openlineage/namespaces')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'replaceOpenLineageNamespaces',
    summary: 'Set the OpenLineage namespaces the space takes events for (space admin)',
    description:
      'Replaces the whole list. An OpenLineage event lands in every space mapping one of its namespaces (its job’s ' +
      'or its datasets’); several spaces may map one namespace. A dataset becomes the product carrying its identity ' +
      '(a connector sync records `postgres://{host}:{port}` + `{database}.{schema}.{table}` for each table), else, ' +
      'with `create_products`, a new `dataset` product named after it; else it is skipped. Changes reach ingestion ' +
      'within 5 seconds on other replicas. A namespace listed twice answers 422.',
  })
  @ApiOkResponse({ type: NamespaceMappingListResponse })
  @ApiProblems(422)
  replace(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: ReplaceNamespaceMappingsDto,
  ): Promise<NamespaceMappingListResponse> {
    return this.mappings.replace(actor, access, dto);
  }

  @Get('catalog/spaces/:slug/products/:product_id/schema-changes')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listProductSchemaChanges',
    summary: 'Column changes of a product reported by OpenLineage schema facets',
    description:
      'Newest first. A change is recorded when a `schema` facet’s columns differ from the columns the product ' +
      'had (added, removed, or with another type); the product’s owners are notified (`schema_changed`).',
  })
  @ApiOkResponse({ type: SchemaChangePage })
  @ApiProblems(422)
  schemaChangesOf(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
    @Query() page: PageQuery,
  ): Promise<InstanceType<typeof SchemaChangePage>> {
    return this.schemaChanges.list(access, params.product_id, page);
  }
}
