import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
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
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AiConfigService } from './ai-config.service';
import { AiGatewayService } from './ai-gateway.service';
import {
  AiConfigResponse,
  CreateAiConfigDto,
  TestConnectionResponse,
  UpdateAiConfigDto,
} from './dto/ai-config.dto';

@ApiTags('AI administration')
@Controller('admin/ai-config')
export class AiConfigController {
  constructor(
    private readonly configs: AiConfigService,
    private readonly gateway: AiGatewayService,
  ) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiConfig',
    summary: 'Read the effective LLM provider configuration',
    description:
      "The database configuration when one exists (`source: database`), else the one from the AI_PROVIDER, AI_MODEL, AI_API_KEY and AI_API_BASE_URL environment variables (`source: environment`). When neither names a provider and a model it still answers 200 with what the environment holds (`source: environment`, `provider` and `model_name` null unless set, `is_enabled: false`), as the embedding configuration does, so an admin page can render its form; AI features answer 503 until a configuration exists. The key is never returned: `api_key_set` says whether one is stored. Every route here works on the scope of the credential's instance: the global configuration on `default`, else that instance's override (kept in its database), which its AI calls use instead of the global one; without an override an instance reads the global configuration.",
  })
  @ApiOkResponse({ type: AiConfigResponse })
  get(): Promise<AiConfigResponse> {
    return this.configs.get();
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createAiConfig',
    summary: 'Create the LLM provider configuration',
    description:
      'One configuration exists at a time: a second POST answers 409. `api_base_url` must be a public HTTPS URL unless its host is listed in TRUSTED_AI_HOSTS (422 otherwise); ALLOW_PRIVATE_NETWORK_TARGETS never relaxes this.',
  })
  @ApiCreatedResponse({ type: AiConfigResponse })
  @ApiProblems(409, 422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateAiConfigDto): Promise<AiConfigResponse> {
    return this.configs.create(actor, dto);
  }

  @Patch()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateAiConfig',
    summary: 'Change the LLM provider configuration',
    description:
      "Partial update of the database configuration (404 when only the environment configures AI). `api_key: null` removes the stored key. Creation, changes (the names of the fields changed, never the key) and deletion are written to the audit log. AI calls read the configuration (this one, model routes, prompts and budget limits) from each server process's memory: the process that answered a change uses it from its next call, the other processes and replicas within milliseconds (a database notification).",
  })
  @ApiOkResponse({ type: AiConfigResponse })
  @ApiProblems(404, 422)
  update(@CurrentActor() actor: Actor, @Body() dto: UpdateAiConfigDto): Promise<AiConfigResponse> {
    return this.configs.update(actor, dto);
  }

  @Delete()
  @HttpCode(204)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'deleteAiConfig',
    summary: 'Delete the LLM provider configuration',
    description:
      "The next configuration in line takes effect again: on an instance the global one, else the environment's (GET then answers `source: environment`). 404 when nothing is stored in this scope.",
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404)
  delete(@CurrentActor() actor: Actor): Promise<void> {
    return this.configs.delete(actor);
  }

  @Post('test-connection')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'testAiConnection',
    summary: 'Test the configured provider',
    description:
      'Sends the `connection_test` prompt to the effective configuration (even when it is disabled) through the gateway, so the call is logged and counted. Always 200: a failure answers `success: false` with the reason.',
  })
  @ApiOkResponse({ type: TestConnectionResponse })
  testConnection(@CurrentActor() actor: Actor): Promise<TestConnectionResponse> {
    return this.gateway.testConnection(actor.userId);
  }
}
