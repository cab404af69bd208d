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
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { CreateSourceSystemDto, SourceSystemParams, SourceSystemResponse } from './dto/connector.dto';
import { SourceSystemsService } from './source-systems.service';

@ApiTags('Connectors')
@Controller('spaces/:slug/source-systems')
export class SourceSystemsController {
  constructor(private readonly systems: SourceSystemsService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createSourceSystem',
    summary: 'Register a source system (edit access)',
    description:
      'Names are unique in the space, compared case-insensitively (409). `system_type` is free text.',
  })
  @ApiCreatedResponse({ type: SourceSystemResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateSourceSystemDto,
  ): Promise<SourceSystemResponse> {
    return this.systems.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listSourceSystems',
    summary: 'List the source systems of a space',
    description: 'By name, with how many connectors each has.',
  })
  @ApiOkResponse({ type: PageOf(SourceSystemResponse) })
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() page: PageQuery,
  ): Promise<Page<SourceSystemResponse>> {
    return this.systems.list(access, page);
  }

  @Delete(':id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSourceSystem',
    summary: 'Delete a source system, unlinking its connectors (edit access)',
    description: 'Its connectors stay, with `source_system_id` cleared; both happen in one transaction.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: SourceSystemParams,
  ): Promise<void> {
    await this.systems.delete(actor, access, params.id);
  }
}
