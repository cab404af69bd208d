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
import { Authenticated } from '../../common/auth/authenticated.decorator';

import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { PageOf } from '../../common/http/page.dto';

import type { Page } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import { SuperadminOnly } from '../../common/permissions/superadmin.guard';

import {
  CreateSpaceDto,
  ListSpacesQuery,
  UpdateSpaceDto,
  UpdateSpaceFeaturesDto,
} from './dto/space-requests.dto';
import { SpaceResponse } from './dto/space-responses.dto';

import { SpacesService } from './spaces.service';
import { ClaimsInTransaction } from '../../platform/idempotency/claims-in-transaction.decorator';

@ApiTags('Spaces')
@Controller('spaces')
export class SpacesController {
  constructor(private readonly spaces: SpacesService) {}

  @Post()
  @ClaimsInTransaction()
  @Authenticated()
  @ApiOperation({
    operationId: 'createSpace',
    summary: 'Create a space (the caller becomes its admin)',
    description:
      'Any signed-in user may create a space and becomes its `admin`. Without `slug`, one is derived from the name; ' +
      'when taken, the first free `-2`, `-3`, ... suffix is used. An explicit slug that is taken answers 409. ' +
      'A new space has every feature at its default (`quality.incidents`: true).',
  })
  @ApiCreatedResponse({ type: SpaceResponse })
  @ApiProblems(409, 422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateSpaceDto): Promise<SpaceResponse> {
    return this.spaces.create(actor, dto);
  }

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listSpaces',
    summary: "List the caller's spaces (all spaces for a superadmin)",
    description: 'Ordered by name. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(SpaceResponse) })
  @ApiProblems(422)
  list(@CurrentActor() actor: Actor, @Query() query: ListSpacesQuery): Promise<Page<SpaceResponse>> {
    return this.spaces.list(actor, query);
  }

  @Get(':slug')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getSpace',
    summary: 'Get a space',
    description:
      'The space with its features and the caller’s role in it (null for a superadmin who is not a member); any member may read it.',
  })
  @ApiOkResponse({ type: SpaceResponse })
  @ApiProblems(422)
  get(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<SpaceResponse> {
    return this.spaces.get(actor, access);
  }

  @Patch(':slug')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateSpace',
    summary: 'Rename a space or change its description (Space Admin)',
    description: 'Only the fields given change. The slug cannot be changed (an unknown field answers 422).',
  })
  @ApiOkResponse({ type: SpaceResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: UpdateSpaceDto,
  ): Promise<SpaceResponse> {
    return this.spaces.update(actor, access, dto);
  }

  @Delete(':slug')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSpace',
    summary: 'Delete a space and everything in it (superadmin)',
    description:
      'Members, products, lineage, metadata configuration and access requests of the space go with it.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  async delete(@CurrentActor() actor: Actor, @Param() params: SlugParams): Promise<void> {
    await this.spaces.delete(actor, params.slug);
  }

  @Patch(':slug/features')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateSpaceFeatures',
    summary: 'Switch space features on or off (Space Admin)',
    description:
      'Takes an object of booleans keyed by feature name, e.g. `{"quality.incidents": false}`; flags left out keep their value, ' +
      'an unknown feature name answers 422. Answers the space.',
  })
  @ApiOkResponse({ type: SpaceResponse })
  @ApiProblems(422)
  updateFeatures(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: UpdateSpaceFeaturesDto,
  ): Promise<SpaceResponse> {
    return this.spaces.updateFeatures(actor, access, dto);
  }
}
