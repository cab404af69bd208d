import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreatedScimTokenResponse,
  CreateScimTokenDto,
  ListScimTokensQuery,
  ScimTokenParams,
  ScimTokenResponse,
} from './dto/scim-token.dto';
import { ScimTokensService } from './scim-tokens.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Administration')
@ControlPlane()
@Controller('admin/scim-tokens')
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createScimToken',
    summary: 'Create a SCIM provisioning token',
    description:
      'Answers the bearer `token` once; only its SHA-256 is kept. The identity provider sends it to `/api/v1.0/scim/v2/*` as `Authorization: Bearer <token>`; it works there only, until it is revoked or expires. Audited.',
  })
  @ApiCreatedResponse({ type: CreatedScimTokenResponse })
  @ApiProblems(422)
  createScimToken(
    @CurrentActor() actor: Actor,
    @Body() dto: CreateScimTokenDto,
  ): Promise<CreatedScimTokenResponse> {
    return this.tokens.create(actor, dto);
  }

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listScimTokens',
    summary: 'List SCIM tokens',
    description: 'Tokens not revoked, newest first; the token itself is never shown again.',
  })
  @ApiOkResponse({ type: PageOf(ScimTokenResponse) })
  @ApiProblems(422)
  listScimTokens(
    @CurrentActor() actor: Actor,
    @Query() query: ListScimTokensQuery,
  ): Promise<Page<ScimTokenResponse>> {
    return this.tokens.list(actor, query);
  }

  @Delete(':token_id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeScimToken',
    summary: 'Revoke a SCIM token',
    description: 'It stops working at once (SCIM answers 401). Audited.',
  })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiProblems(404, 422)
  revokeScimToken(@CurrentActor() actor: Actor, @Param() params: ScimTokenParams): Promise<void> {
    return this.tokens.revoke(actor, params.token_id);
  }
}
