import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { PutWebSearchBindingDto, WebSearchBindingResponse } from './dto/web-search-binding.dto';
import { WebSearchBindingService } from './web-search-binding.service';

const READINESS =
  "`readiness_errors` lists every reason the capability fails closed, each as `code: sentence` with code one of no_binding, provider_inactive, credential_inactive, credential_incomplete, missing_executable, discovery_failed, incompatible_schema, tool_unavailable, health_probe_failed. The health probe lists the provider's tools on its warm session (started if needed) within 5 s; it runs live here, is skipped when the process could not start for a listed reason, and a passed probe is reused for 30 s by tool calls.";

@ApiTags('Tool providers')
@Controller('spaces/:slug/ai/tool-capabilities/web_search')
export class WebSearchBindingController {
  constructor(private readonly bindings: WebSearchBindingService) {}

  @Get()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'getSpaceWebSearchCapability',
    summary: "The space's web_search binding and readiness",
    description: `Answers 200 with \`healthy: false\` and a no_binding error when nothing is bound. ${READINESS}`,
  })
  @ApiOkResponse({ type: WebSearchBindingResponse })
  @ApiProblems(422)
  get(@Param() _params: SlugParams, @CurrentSpace() access: SpaceAccess): Promise<WebSearchBindingResponse> {
    return this.bindings.get(access.space.id);
  }

  @Put()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'putSpaceWebSearchCapability',
    summary: "Bind the space's web_search tool",
    description: `One binding per space: a PUT replaces it (revoking the old binding's grants); PUT of the tool already bound changes nothing. The tool must have capability_id web_search, be compatible, and be available in the space (400 with the reason otherwise); an unknown tool answers 404. ${READINESS}`,
  })
  @ApiOkResponse({ type: WebSearchBindingResponse })
  @ApiProblems(400, 422)
  put(
    @CurrentActor() actor: Actor,
    @Param() _params: SlugParams,
    @CurrentSpace() access: SpaceAccess,
    @Body() dto: PutWebSearchBindingDto,
  ): Promise<WebSearchBindingResponse> {
    return this.bindings.put(actor, access.space, dto.provider_tool_id);
  }

  @Delete()
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSpaceWebSearchCapability',
    summary: "Remove the space's web_search binding",
    description: 'Revokes the external-research grants scoped to the binding. 404 when nothing is bound.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(422)
  delete(
    @CurrentActor() actor: Actor,
    @Param() _params: SlugParams,
    @CurrentSpace() access: SpaceAccess,
  ): Promise<void> {
    return this.bindings.delete(actor, access.space);
  }
}
