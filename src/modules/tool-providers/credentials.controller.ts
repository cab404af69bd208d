import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
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
  CreateCredentialDto,
  CredentialParams,
  CredentialResponse,
  UpdateCredentialDto,
} from './dto/credential.dto';
import { CredentialsService } from './credentials.service';

@ApiTags('Credentials')
@Controller('admin/credentials')
export class CredentialsController {
  constructor(private readonly credentials: CredentialsService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listCredentials',
    summary: 'List stored credentials',
    description: 'Oldest first. Secrets are never returned (`secret_set`).',
  })
  @ApiOkResponse({ type: PageOf(CredentialResponse) })
  @ApiProblems(422)
  list(@Query() query: PageQuery): Promise<Page<CredentialResponse>> {
    return this.credentials.list(query.skip ?? 0, query.limit ?? 50);
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createCredential',
    summary: 'Store a credential',
    description:
      'The `secret` is sealed at rest (AES-256-GCM) and write-only. It may be left out and set later; until then `secret_set` is false and providers using it fail closed (incomplete credential).',
  })
  @ApiCreatedResponse({ type: CredentialResponse })
  @ApiProblems(422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateCredentialDto): Promise<CredentialResponse> {
    return this.credentials.create(actor, dto);
  }

  @Patch(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateCredential',
    summary: 'Change a credential',
    description:
      'Only the fields given change; `secret: null` removes the secret. Running provider processes that use it are stopped, so the next call starts with the new value.',
  })
  @ApiOkResponse({ type: CredentialResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: CredentialParams,
    @Body() dto: UpdateCredentialDto,
  ): Promise<CredentialResponse> {
    return this.credentials.update(actor, params.id, dto);
  }

  @Delete(':id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteCredential',
    summary: 'Delete a credential',
    description:
      'Providers that used it keep their `secret_env_var` with no credential: they stay editable and fail closed (incomplete credential) until another is attached.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  delete(@CurrentActor() actor: Actor, @Param() params: CredentialParams): Promise<void> {
    return this.credentials.delete(actor, params.id);
  }
}
