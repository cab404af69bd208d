import { SlugParams } from '../../common/http/slug-params.dto';

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Type } from '@nestjs/common';

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

import { Collection, COLLECTION_SPECS } from './collections';

import { CreateLevelDto, LevelParams, UpdateLevelDto } from './dto/metadata-requests.dto';
import { LevelResponse } from './dto/metadata-responses.dto';

import { MetadataConfigService } from './metadata-config.service';

interface LevelNames {
  /** `CriticalityLevel`, for operation ids. */
  singular: string;
  plural: string;
}

/**
 * Criticality and sensitivity levels have the same shape and rules; one
 * controller class per collection is made here so that each gets its own
 * paths and operation ids.
 */
function levelsController(collection: Collection, names: LevelNames): Type<unknown> {
  const label = COLLECTION_SPECS[collection].label;
  const defaults = COLLECTION_SPECS[collection].defaults.map((d) => d.name).join(', ');

  @ApiTags('Metadata configuration')
  @Controller(`spaces/:slug/config/${collection}`)
  class LevelsController {
    constructor(readonly config: MetadataConfigService) {}

    @Get()
    @SpaceRole('admin')
    @ApiOperation({
      operationId: `list${names.plural}`,
      summary: `List the ${label}s of a space (Space Admin)`,
      description: `The live (not deleted) values, ordered by \`sort_order\` then name. Members who are not admins read them through \`GET /spaces/{slug}/config\`.`,
    })
    @ApiOkResponse({ type: LevelResponse, isArray: true })
    @ApiProblems(422)
    list(
      @CurrentActor() actor: Actor,
      @CurrentSpace() access: SpaceAccess,
      @Param() _params: SlugParams,
    ): Promise<LevelResponse[]> {
      return this.config.list(actor, access, collection) as Promise<LevelResponse[]>;
    }

    @Post()
    @SpaceRole('admin')
    @ApiOperation({
      operationId: `create${names.singular}`,
      summary: `Create a ${label} (Space Admin)`,
      description:
        'Names are unique among the live values of the space, compared case-insensitively (409). `color` defaults to `#6B7280`, `sort_order` to after the last live value. Answers the value `{id, name, color, sort_order, description, created_at, updated_at}`.',
    })
    @ApiCreatedResponse({ type: LevelResponse })
    @ApiProblems(409, 422)
    create(
      @CurrentActor() actor: Actor,
      @CurrentSpace() access: SpaceAccess,
      @Param() _params: SlugParams,
      @Body() dto: CreateLevelDto,
    ): Promise<LevelResponse> {
      return this.config.create(actor, access, collection, dto) as Promise<LevelResponse>;
    }

    @Post('seed')
    @SpaceRole('admin')
    @HttpCode(200)
    @ApiOperation({
      operationId: `seed${names.plural}`,
      summary: `Create the standard ${label}s (Space Admin)`,
      description: `Creates the standard defaults (${defaults}) that no live value of the space is named like yet, so running it again creates nothing. Answers the live list after seeding.`,
    })
    @ApiOkResponse({ type: LevelResponse, isArray: true })
    @ApiProblems(422)
    seed(
      @CurrentActor() actor: Actor,
      @CurrentSpace() access: SpaceAccess,
      @Param() _params: SlugParams,
    ): Promise<LevelResponse[]> {
      return this.config.seed(actor, access, collection) as Promise<LevelResponse[]>;
    }

    @Patch(':level_id')
    @SpaceRole('admin')
    @ApiOperation({
      operationId: `update${names.singular}`,
      summary: `Update a ${label} (Space Admin)`,
      description:
        'Only the fields given change. A deleted or missing value answers 404; a name taken by another live value 409. Products that carry the value show the new name.',
    })
    @ApiOkResponse({ type: LevelResponse })
    @ApiProblems(409, 422)
    update(
      @CurrentActor() actor: Actor,
      @CurrentSpace() access: SpaceAccess,
      @Param() params: LevelParams,
      @Body() dto: UpdateLevelDto,
    ): Promise<LevelResponse> {
      return this.config.update(actor, access, collection, params.level_id, dto) as Promise<LevelResponse>;
    }

    @Delete(':level_id')
    @SpaceRole('admin')
    @HttpCode(204)
    @ApiOperation({
      operationId: `delete${names.singular}`,
      summary: `Delete a ${label} (soft delete; Space Admin)`,
      description:
        'The value leaves the lists and can no longer be chosen for a product (422), but stays on the products that already carry it. Missing or already deleted: 404.',
    })
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiProblems(422)
    async remove(
      @CurrentActor() actor: Actor,
      @CurrentSpace() access: SpaceAccess,
      @Param() params: LevelParams,
    ): Promise<void> {
      await this.config.remove(actor, access, collection, params.level_id);
    }
  }

  Object.defineProperty(LevelsController, 'name', { value: `${names.plural}Controller` });
  return LevelsController;
}

export const CriticalityLevelsController = levelsController('criticality-levels', {
  singular: 'CriticalityLevel',
  plural: 'CriticalityLevels',
});

export const SensitivityLevelsController = levelsController('sensitivity-levels', {
  singular: 'SensitivityLevel',
  plural: 'SensitivityLevels',
});
