import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { EnablementParams, PutEnablementDto, SpaceToolProviderResponse } from './dto/space-tools.dto';
import { SpaceToolsService } from './space-tools.service';

@ApiTags('Tool providers')
@Controller('spaces/:slug/ai/tool-providers')
export class SpaceToolsController {
  constructor(private readonly spaceTools: SpaceToolsService) {}

  @Get()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'listSpaceToolProviders',
    summary: 'Tool providers and their enablement in a space',
    description:
      "Every registered provider, by slug, with this space's enablement (disabled when never set) and the namespaced tools available in the space now. Space tool settings need edit access, reads included.",
  })
  @ApiOkResponse({ type: SpaceToolProviderResponse, isArray: true })
  @ApiProblems(422)
  list(
    @Param() _params: SlugParams,
    @CurrentSpace() access: SpaceAccess,
  ): Promise<SpaceToolProviderResponse[]> {
    return this.spaceTools.list(access.space.id);
  }

  @Put(':provider_id/enablement')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'putSpaceToolProviderEnablement',
    summary: 'Enable or disable a tool provider in a space',
    description:
      'A tool is available in the space only when its provider is active and enabled here, the tool is enabled, its risk level is read, and (with an allowlist) it is allowlisted. `max_risk_level` other than read answers 400; an allowlisted name the provider does not list answers 400 naming it. Names are stored raw.',
  })
  @ApiOkResponse({ type: SpaceToolProviderResponse })
  @ApiProblems(400, 422)
  put(
    @CurrentActor() actor: Actor,
    @Param() params: EnablementParams,
    @CurrentSpace() access: SpaceAccess,
    @Body() dto: PutEnablementDto,
  ): Promise<SpaceToolProviderResponse> {
    return this.spaceTools.putEnablement(actor, access.space, params.provider_id, dto);
  }
}
