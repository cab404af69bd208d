import { SlugParams } from '../../common/http/slug-params.dto';

import { Controller, Get, Param } from '@nestjs/common';

import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import { SpaceConfigResponse } from './dto/metadata-responses.dto';

import { MetadataConfigService } from './metadata-config.service';

@ApiTags('Metadata configuration')
@Controller('spaces/:slug/config')
export class SpaceConfigController {
  constructor(private readonly config: MetadataConfigService) {}

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getSpaceConfig',
    summary: 'Read the live metadata values of a space (any member)',
    description:
      'Read-only, for product forms: the live criticality levels, sensitivity levels and maintenance statuses, each ordered by `sort_order` then name. Managing them stays Space Admin only.',
  })
  @ApiOkResponse({ type: SpaceConfigResponse })
  @ApiProblems(422)
  get(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<SpaceConfigResponse> {
    return this.config.overview(actor, access);
  }
}
