import { Body, Controller, Get, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreateModelProfileDto,
  ModelProfileResponse,
  ModelRouteResponse,
  PutModelRouteDto,
} from './dto/model-routing.dto';
import { ModelRoutingService } from './model-routing.service';

const PER_INSTANCE =
  'Profiles and routes belong to one instance (its database) and are managed with a token of it; another instance, `default` included, never lends them.';

@ApiTags('AI administration')
@Controller('admin/ai-model-routing')
export class ModelRoutingController {
  constructor(private readonly routing: ModelRoutingService) {}

  @Get('profiles')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiModelProfiles',
    summary: 'List model profiles',
    description: `The profiles of the caller's instance, by name; \`{items, total}\` with \`skip\`/\`limit\`. ${PER_INSTANCE}`,
  })
  @ApiOkResponse({ type: PageOf(ModelProfileResponse) })
  @ApiProblems(422)
  listProfiles(@Query() page: PageQuery): Promise<Page<ModelProfileResponse>> {
    return this.routing.listProfiles(page);
  }

  @Post('profiles')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createAiModelProfile',
    summary: 'Create a model profile',
    description:
      "A failed call on a profile (provider error or time-out, after retries) is tried once on its `fallback_profile_id`; both attempts are logged in the same workflow run. A profile may carry its own write-only `api_key` and `api_base_url`; without them it uses the provider configuration's when both name the same provider. Names are unique (409).",
  })
  @ApiCreatedResponse({ type: ModelProfileResponse })
  @ApiProblems(409, 422)
  createProfile(@Body() dto: CreateModelProfileDto): Promise<ModelProfileResponse> {
    return this.routing.createProfile(dto);
  }

  @Get('routes')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiModelRoutes',
    summary: 'List model routes',
    description: `The routes of the caller's instance, by feature; \`{items, total}\` with \`skip\`/\`limit\`. ${PER_INSTANCE}`,
  })
  @ApiOkResponse({ type: PageOf(ModelRouteResponse) })
  @ApiProblems(422)
  listRoutes(@Query() page: PageQuery): Promise<Page<ModelRouteResponse>> {
    return this.routing.listRoutes(page);
  }

  @Put('routes')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'putAiModelRoute',
    summary: 'Create or replace the route of a feature',
    description: 'Sends a feature to a profile. A feature without a route uses the provider configuration.',
  })
  @ApiOkResponse({ type: ModelRouteResponse })
  @ApiProblems(422)
  putRoute(@Body() dto: PutModelRouteDto): Promise<ModelRouteResponse> {
    return this.routing.putRoute(dto);
  }
}
