import { SlugParams } from '../../common/http/slug-params.dto';

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';

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

import { CreateStatusDto, StatusParams, UpdateStatusDto } from './dto/metadata-requests.dto';
import { StatusResponse } from './dto/metadata-responses.dto';

import { MetadataConfigService } from './metadata-config.service';

const COLLECTION = 'maintenance-statuses';

@ApiTags('Metadata configuration')
@Controller(`spaces/:slug/config/${COLLECTION}`)
export class MaintenanceStatusesController {
  constructor(private readonly config: MetadataConfigService) {}

  @Get()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'listMaintenanceStatuses',
    summary: 'List the maintenance statuses of a space (Space Admin)',
    description:
      'The live (not deleted) statuses, ordered by `sort_order` then name. Members who are not admins read them through `GET /spaces/{slug}/config`.',
  })
  @ApiOkResponse({ type: StatusResponse, isArray: true })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<StatusResponse[]> {
    return this.config.list(actor, access, COLLECTION) as Promise<StatusResponse[]>;
  }

  @Post()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'createMaintenanceStatus',
    summary: 'Create a maintenance status (Space Admin)',
    description:
      'Names (case-insensitively) and slugs are unique among the live statuses of the space (409). The slug is derived from the name when left out; `color` defaults to `#6B7280`, `sort_order` to after the last live status. Answers `{id, name, slug, color, sort_order, created_at, updated_at}`.',
  })
  @ApiCreatedResponse({ type: StatusResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateStatusDto,
  ): Promise<StatusResponse> {
    return this.config.create(actor, access, COLLECTION, dto) as Promise<StatusResponse>;
  }

  @Post('seed')
  @SpaceRole('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'seedMaintenanceStatuses',
    summary: 'Create the standard maintenance statuses (Space Admin)',
    description:
      'Creates Active (`active`), Deprecated (`deprecated`), Retired (`retired`) and Under Maintenance (`under_maintenance`) where no live status has that name or slug yet, so running it again creates nothing. Answers the live list after seeding.',
  })
  @ApiOkResponse({ type: StatusResponse, isArray: true })
  @ApiProblems(422)
  seed(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<StatusResponse[]> {
    return this.config.seed(actor, access, COLLECTION) as Promise<StatusResponse[]>;
  }

  @Patch(':status_id')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateMaintenanceStatus',
    summary: 'Update a maintenance status (Space Admin)',
    description:
      'Only the fields given change. A deleted or missing status answers 404; a name or slug taken by another live status 409.',
  })
  @ApiOkResponse({ type: StatusResponse })
  @ApiProblems(409, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StatusParams,
    @Body() dto: UpdateStatusDto,
  ): Promise<StatusResponse> {
    return this.config.update(actor, access, COLLECTION, params.status_id, dto) as Promise<StatusResponse>;
  }

  @Delete(':status_id')
  @SpaceRole('admin')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteMaintenanceStatus',
    summary: 'Delete a maintenance status (soft delete; Space Admin)',
    description:
      'The status leaves the lists and can no longer be chosen for a product (422), but stays on the products that already carry it. Missing or already deleted: 404.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  async remove(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StatusParams,
  ): Promise<void> {
    await this.config.remove(actor, access, COLLECTION, params.status_id);
  }
}
