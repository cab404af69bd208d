import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ScimGetQuery, ScimIdParams, ScimListQuery } from './dto/scim-query.dto';
import { ApiScimErrors, ScimRoute, ScimTokenId } from './scim-auth.guard';
import { IfMatchHeader, ScimBody, ScimOk } from './scim-docs';
import { SCIM_CONTENT_TYPE, withEtag } from './scim-resources';
import { ScimUsersService } from './scim-users.service';

type Resource = Record<string, unknown>;

@ApiTags('SCIM')
@Controller('scim/v2/Users')
export class ScimUsersController {
  constructor(private readonly users: ScimUsersService) {}

  @Get()
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimListUsers',
    summary: 'SCIM: list or filter users',
    description:
      'Every Verity account (except those deleted through SCIM), oldest first, as a ListResponse. An account SCIM did not provision has its email as userName. Filterable attributes: userName, emails, emails.value, emails[type eq "work"].value, externalId, displayName, name.givenName, name.familyName, active, id. String comparisons ignore case except externalId and id.',
  })
  @ScimOk(200, 'A ListResponse of User resources.', true)
  @ApiScimErrors(400)
  scimListUsers(@Query() query: ScimListQuery) {
    return this.users.list(query);
  }

  @Get(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimGetUser',
    summary: 'SCIM: get a user',
    description:
      'One provisioned user as a SCIM User resource, with its `ETag`; an unknown id answers a SCIM 404.',
  })
  @ScimOk(200, 'The User resource, with its ETag.')
  @ApiScimErrors(404)
  async scimGetUser(
    @Param() params: ScimIdParams,
    @Query() _query: ScimGetQuery,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.users.get(params.id));
  }

  @Post()
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('User')
  @ApiOperation({
    operationId: 'scimCreateUser',
    summary: 'SCIM: provision a user',
    description:
      "userName is the identity provider login (for example Entra's userPrincipalName), kept as sent and unique ignoring case. The account email (mail, sign-in and SSO matching) is kept apart: the work address of `emails`, else the primary, else the first, else userName when it is an email (400 invalidValue when there is none). The account has no password (it signs in through SSO). A userName or email already taken answers 409 uniqueness, except an account deleted through SCIM, which is restored. The enterprise extension (employeeNumber, costCenter, organization, division, department, manager) is kept and returned; other attributes Verity does not store are ignored. Audited.",
  })
  @ScimOk(201, 'The created User resource.')
  @ApiScimErrors(400, 409)
  async scimCreateUser(
    @Body() body: Resource,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.users.create(body, tokenId), true);
  }

  @Put(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('User')
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimReplaceUser',
    summary: 'SCIM: replace a user',
    description:
      'Sets userName, the email (as on creation), name, active (default true), externalId and the enterprise extension as given. `active: false` deactivates the account and revokes its sessions and API keys. Audited.',
  })
  @ScimOk(200, 'The User resource.')
  @ApiScimErrors(400, 404, 409, 412)
  async scimReplaceUser(
    @Param() params: ScimIdParams,
    @Body() body: Resource,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.users.replace(params.id, body, tokenId, ifMatch));
  }

  @Patch(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('PatchOp')
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimPatchUser',
    summary: 'SCIM: update a user (PatchOp)',
    description:
      '`op` is case-insensitive (add, replace, remove). Paths: active (a boolean or "True"/"False"), userName (the login only), emails or emails[type eq "work"].value (the account email only; other types are ignored, and the email cannot be removed), externalId, name, name.givenName, name.familyName, and the enterprise extension by URN (`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`, or the whole object); without a path the value is an object of attributes (dotted keys and URN keys allowed). Deactivation revokes the sessions and API keys. Audited.',
  })
  @ScimOk(200, 'The User resource after the operations.')
  @ApiScimErrors(400, 404, 409, 412)
  async scimPatchUser(
    @Param() params: ScimIdParams,
    @Body() body: Resource,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.users.patch(params.id, body, tokenId, ifMatch));
  }

  @Delete(':id')
  @ScimRoute()
  @HttpCode(204)
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimDeleteUser',
    summary: 'SCIM: deprovision a user',
    description:
      'Deactivates the account (its sessions and API keys are revoked) and hides it from SCIM (404 afterwards); the account itself is kept, with its history. Provisioning the same userName again restores it. Audited.',
  })
  @ApiNoContentResponse({ description: 'Deprovisioned.' })
  @ApiScimErrors(404, 409, 412)
  scimDeleteUser(
    @Param() params: ScimIdParams,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
  ): Promise<void> {
    return this.users.delete(params.id, tokenId, ifMatch);
  }
}
