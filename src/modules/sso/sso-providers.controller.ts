import { Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Public } from '../../common/auth/public.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreateSsoProviderDto,
  SsoProviderParams,
  SsoProviderResponse,
  UpdateSsoProviderDto,
} from './dto/sso-provider.dto';
import { SsoLoginService } from './sso-login.service';
import { SsoProvidersService } from './sso-providers.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('SSO')
@ControlPlane()
@Controller('sso/providers')
export class SsoProvidersController {
  constructor(
    private readonly providers: SsoProvidersService,
    private readonly logins: SsoLoginService,
  ) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listSsoProviders',
    summary: 'List SSO identity providers',
    description: 'Oldest first. Client secrets are never returned (`client_secret_set`).',
  })
  @ApiOkResponse({ type: PageOf(SsoProviderResponse) })
  @ApiProblems(422)
  list(@Query() query: PageQuery): Promise<Page<SsoProviderResponse>> {
    return this.providers.list(query.skip ?? 0, query.limit ?? 50);
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createSsoProvider',
    summary: 'Register a SAML or OIDC identity provider',
    description:
      'The block of the chosen `protocol` (`oidc` or `saml`) is required and the other one refused (422); an unknown protocol is 422. Issuer and entry-point URLs must be HTTPS (422). `idp_certificate` must parse as X.509 (422). A SAML provider gets its own service-provider signing key pair (the private key sealed at rest), published with its metadata at `GET /sso/providers/{id}/metadata`; register `saml.callback_url` as the ACS URL and `saml.issuer` as the SP entity ID at the identity provider. For OIDC, register `{PUBLIC_BASE_URL}/api/v1.0/sso/callback` as the redirect URI. A domain already used by another enabled provider answers 409.',
  })
  @ApiCreatedResponse({ type: SsoProviderResponse })
  @ApiProblems(409, 422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateSsoProviderDto): Promise<SsoProviderResponse> {
    return this.providers.create(actor, dto);
  }

  @Get(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getSsoProvider',
    summary: 'Get an SSO identity provider',
    description: 'One SAML or OIDC identity provider; client secrets are never answered.',
  })
  @ApiOkResponse({ type: SsoProviderResponse })
  @ApiProblems(404, 422)
  get(@Param() params: SsoProviderParams): Promise<SsoProviderResponse> {
    return this.providers.get(params.id);
  }

  @Patch(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateSsoProvider',
    summary: 'Change an SSO identity provider',
    description:
      'Only the fields given change, inside the `oidc`/`saml` block too; the protocol itself cannot change (register a new provider). `oidc.client_secret: null` removes the stored secret. The cached OIDC discovery is dropped.',
  })
  @ApiOkResponse({ type: SsoProviderResponse })
  @ApiProblems(404, 409, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: SsoProviderParams,
    @Body() dto: UpdateSsoProviderDto,
  ): Promise<SsoProviderResponse> {
    return this.providers.update(actor, params.id, dto);
  }

  @Delete(':id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSsoProvider',
    summary: 'Delete an SSO identity provider',
    description: 'Logins in progress with it fail; accounts it created stay.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  delete(@CurrentActor() actor: Actor, @Param() params: SsoProviderParams): Promise<void> {
    return this.providers.delete(actor, params.id);
  }

  @Get(':id/metadata')
  @Public({ ignoresCaller: true })
  @Header('Content-Type', 'application/samlmetadata+xml; charset=utf-8')
  @ApiProduces('application/samlmetadata+xml')
  @ApiOperation({
    operationId: 'getSsoProviderMetadata',
    summary: 'SAML service-provider metadata XML',
    description:
      'Public, for the identity provider: entity ID (`saml.issuer`), the Assertion Consumer Service (HTTP-POST, `/sso/callback`) and the signing certificate. Served for disabled providers too; an OIDC or unknown provider answers 404.',
  })
  @ApiOkResponse({
    description: 'The SPSSODescriptor metadata.',
    content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } },
  })
  @ApiProblems(404, 422)
  metadata(@Param() params: SsoProviderParams): Promise<string> {
    return this.logins.metadata(params.id);
  }
}
