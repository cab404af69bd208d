import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreateToolProviderDto,
  DiscoveryResponse,
  ProviderToolResponse,
  ToolProviderParams,
  ToolOverrideEntry,
  ToolProviderResponse,
  UpdateToolProviderDto,
} from './dto/tool-provider.dto';
import { ToolDiscoveryService } from './tool-discovery.service';
import { ToolProvidersService } from './tool-providers.service';

const RULES =
  'Provider rules answer 400 naming the field (`errors[]` lists each): slug pattern, kind other than `mcp_stdio`, `command_argv` of 1 to 20 items without shells, program launchers, denied executables or inline programs, a relative `cwd` without `..`, no sensitive or service-controlled `env` names, `secret_env_var` a variable name and required exactly with `credential_id`, `tool_overrides` entries. Wrong JSON types of the plain fields (name, description, is_active, credential_id) answer 422 like everywhere else.';

@ApiTags('Tool providers')
@ApiExtraModels(ToolOverrideEntry)
@Controller('admin/ai/tool-providers')
export class ToolProvidersController {
  constructor(
    private readonly providers: ToolProvidersService,
    private readonly discovery: ToolDiscoveryService,
  ) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listToolProviders',
    summary: 'List external tool providers',
    description: 'Oldest first.',
  })
  @ApiOkResponse({ type: PageOf(ToolProviderResponse) })
  @ApiProblems(422)
  list(@Query() query: PageQuery): Promise<Page<ToolProviderResponse>> {
    return this.providers.list(query.skip ?? 0, query.limit ?? 50);
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createToolProvider',
    summary: 'Register an MCP stdio tool provider',
    description: `${RULES} A duplicate slug answers 409; a \`credential_id\` that does not exist 404, an inactive one 400. Nothing is started: run discovery afterwards.`,
  })
  @ApiCreatedResponse({ type: ToolProviderResponse })
  @ApiProblems(400, 404, 409, 422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateToolProviderDto): Promise<ToolProviderResponse> {
    return this.providers.create(actor, dto);
  }

  @Get(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getToolProvider',
    summary: 'Get an external tool provider',
    description:
      'One external tool provider with its command, environment, tool overrides and the outcome of its last discovery; the credential’s secret is never answered.',
  })
  @ApiOkResponse({ type: ToolProviderResponse })
  @ApiProblems(404, 422)
  get(@Param() params: ToolProviderParams): Promise<ToolProviderResponse> {
    return this.providers.get(params.id);
  }

  @Patch(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateToolProvider',
    summary: 'Change an external tool provider',
    description: `Only the fields given change; the slug cannot. ${RULES} Changed \`tool_overrides\` apply to the stored tools at once. Any change stops the provider's running session; \`is_active: false\` makes it fail closed.`,
  })
  @ApiOkResponse({ type: ToolProviderResponse })
  @ApiProblems(400, 404, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: ToolProviderParams,
    @Body() dto: UpdateToolProviderDto,
  ): Promise<ToolProviderResponse> {
    return this.providers.update(actor, params.id, dto);
  }

  @Delete(':id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteToolProvider',
    summary: 'Delete an external tool provider',
    description:
      'Its tools, space enablements and capability bindings go with it, and its active external-research grants are revoked.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  delete(@CurrentActor() actor: Actor, @Param() params: ToolProviderParams): Promise<void> {
    return this.providers.delete(actor, params.id);
  }

  @Post(':id/discover')
  @SuperadminOnly()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'discoverToolProviderTools',
    summary: 'Discover the tools of a provider',
    description:
      "Starts the provider's process (no shell; its environment is only its `env`, `PATH` and the secret variable), lists every tool (following cursors) within 20 s and 1 MB of output, and makes the stored tools match (input schemas stored exactly as given, overrides applied, tools no longer listed removed with their bindings, whose grants are revoked). Synchronous: answers when done. An inactive provider answers 400, as does a credential that is inactive or has no secret; a missing executable, a crash, a timeout, an output flood or an MCP error answer 502 and set `last_error` (never holding the secret).",
  })
  @ApiOkResponse({ type: DiscoveryResponse })
  @ApiProblems(400, 404, 422, 502)
  discover(@CurrentActor() actor: Actor, @Param() params: ToolProviderParams): Promise<DiscoveryResponse> {
    return this.discovery.discover(actor, params.id);
  }

  @Get(':id/tools')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listToolProviderTools',
    summary: 'List the discovered tools of a provider',
    description: 'By tool name. `capability_compatible` is null for a tool without capability_id.',
  })
  @ApiOkResponse({ type: ProviderToolResponse, isArray: true })
  @ApiProblems(404, 422)
  tools(@Param() params: ToolProviderParams): Promise<ProviderToolResponse[]> {
    return this.providers.listTools(params.id);
  }
}
