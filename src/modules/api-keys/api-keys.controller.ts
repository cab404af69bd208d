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
import { Page, PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { NotImpersonated } from '../../common/permissions/not-impersonated.guard';
import { SessionRequired } from '../../common/permissions/session-required.guard';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyParams, CreateApiKeyDto, ListApiKeysQuery, UpdateApiKeyDto } from './dto/api-key-requests.dto';
import { ApiKeyResponse, CreatedApiKeyResponse } from './dto/api-key-responses.dto';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

const WHO =
  'Needs a signed-in session: impersonation tokens and API keys get 403 here, so a leaked key cannot create or keep other keys.';

@ApiTags('API keys')
@ControlPlane()
@Controller('api-keys/me/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Get()
  @Authenticated()
  @NotImpersonated()
  @SessionRequired()
  @ApiOperation({
    operationId: 'listMyApiKeys',
    summary: 'List my API keys',
    description: `Newest first; revoked keys only with \`include_revoked=true\`. The secret is never shown again. ${WHO}`,
  })
  @ApiOkResponse({ type: PageOf(ApiKeyResponse) })
  @ApiProblems(422)
  list(@CurrentActor() actor: Actor, @Query() query: ListApiKeysQuery): Promise<Page<ApiKeyResponse>> {
    return this.apiKeys.list(actor, query);
  }

  @Post()
  @Authenticated()
  @NotImpersonated()
  @SessionRequired()
  @ApiOperation({
    operationId: 'createMyApiKey',
    summary: 'Create an API key',
    description:
      'Answers the secret `key` once; only its SHA-256 is kept. Send it as `Authorization: Bearer <key>`: it acts as you (with your current rights) until it is revoked, expires, or your account is deactivated. ' +
      'It belongs to the instance of the token that creates it and reaches only that instance (while you are a member of it). ' +
      `Its requests are rate-limited per key by its tier. Only a superadmin may choose a tier above \`standard\` (403). ${WHO}`,
  })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  @ApiProblems(422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    return this.apiKeys.create(actor, dto);
  }

  @Patch(':key_id')
  @Authenticated()
  @NotImpersonated()
  @SessionRequired()
  @ApiOperation({
    operationId: 'updateMyApiKey',
    summary: 'Rename an API key or change its tier',
    description: `Only a superadmin may set a tier above \`standard\` (403); lowering a key to \`standard\` is open to its owner. ${WHO}`,
  })
  @ApiOkResponse({ type: ApiKeyResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: ApiKeyParams,
    @Body() dto: UpdateApiKeyDto,
  ): Promise<ApiKeyResponse> {
    return this.apiKeys.update(actor, params.key_id, dto);
  }

  @Delete(':key_id')
  @Authenticated()
  @NotImpersonated()
  @SessionRequired()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeMyApiKey',
    summary: 'Revoke an API key',
    description: `The key stops working at once (401). Revoking a revoked key changes nothing. ${WHO}`,
  })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiProblems(404, 422)
  revoke(@CurrentActor() actor: Actor, @Param() params: ApiKeyParams): Promise<void> {
    return this.apiKeys.revoke(actor, params.key_id);
  }
}
