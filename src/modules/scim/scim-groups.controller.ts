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
import { ScimGroupsService } from './scim-groups.service';
import { SCIM_CONTENT_TYPE, withEtag } from './scim-resources';

type Resource = Record<string, unknown>;

const MAPPING =
  'A group is kept as the identity provider sends it: any displayName (up to 256 characters, unique ignoring case), renamable, with its members. What it grants is set by a superadmin under /api/v1.0/admin/scim-group-mappings (one role per space); a member holds in each space the highest of the roles of their mapped groups and the role granted to them directly.';

@ApiTags('SCIM')
@Controller('scim/v2/Groups')
export class ScimGroupsController {
  constructor(private readonly groups: ScimGroupsService) {}

  @Get()
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimListGroups',
    summary: 'SCIM: list or filter groups',
    description: `${MAPPING} Groups created through SCIM, oldest first, with their members (\`display\` is the userName). Filterable attributes: displayName (ignoring case), externalId, id. \`excludedAttributes=members\` leaves members out.`,
  })
  @ScimOk(200, 'A ListResponse of Group resources.', true)
  @ApiScimErrors(400)
  scimListGroups(@Query() query: ScimListQuery) {
    return this.groups.list(query);
  }

  @Get(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimGetGroup',
    summary: 'SCIM: get a group',
    description:
      'One provisioned group as a SCIM Group resource, with its `ETag`; an unknown id answers a SCIM 404.',
  })
  @ScimOk(200, 'The Group resource, with its ETag.')
  @ApiScimErrors(404)
  async scimGetGroup(
    @Param() params: ScimIdParams,
    @Query() query: ScimGetQuery,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.groups.get(params.id, query.excludedAttributes));
  }

  @Post()
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('Group')
  @ApiOperation({
    operationId: 'scimCreateGroup',
    summary: 'SCIM: create a group',
    description: `${MAPPING} A displayName already taken answers 409 uniqueness. Shortcut: a group created as \`<space-slug>:<role>\` (role admin, editor or viewer) of an existing space is mapped to that role at once; any other name starts unmapped and grants nothing until mapped. Unknown member ids answer 400 invalidValue. Audited.`,
  })
  @ScimOk(201, 'The created Group resource.')
  @ApiScimErrors(400, 409)
  async scimCreateGroup(
    @Body() body: Resource,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.groups.create(body, tokenId), true);
  }

  @Put(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('Group')
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimReplaceGroup',
    summary: 'SCIM: replace a group',
    description:
      'Sets displayName (a rename keeps the mappings) and externalId. `members`, when given, becomes the member list and the roles of those who joined or left are recomputed; without `members` they stay as they are. A change that would leave a space without an admin answers 409. Audited.',
  })
  @ScimOk(200, 'The Group resource.')
  @ApiScimErrors(400, 404, 409, 412)
  async scimReplaceGroup(
    @Param() params: ScimIdParams,
    @Body() body: Resource,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.groups.replace(params.id, body, tokenId, ifMatch));
  }

  @Patch(':id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ScimBody('PatchOp')
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimPatchGroup',
    summary: 'SCIM: change group members (PatchOp)',
    description:
      '`op` is case-insensitive. `add` with path `members` adds; `remove` with `members[value eq "<id>"]` or with path `members` and a value list removes; `replace` of `members` sets the list; displayName (a rename) and externalId may change. The roles of the members who joined or left are recomputed; a change that would leave a space without an admin answers 409. Audited.',
  })
  @ScimOk(200, 'The Group resource after the operations.')
  @ApiScimErrors(400, 404, 409, 412)
  async scimPatchGroup(
    @Param() params: ScimIdParams,
    @Body() body: Resource,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
    @Res({ passthrough: true }) res: Response,
  ) {
    return withEtag(res, await this.groups.patch(params.id, body, tokenId, ifMatch));
  }

  @Delete(':id')
  @ScimRoute()
  @HttpCode(204)
  @IfMatchHeader()
  @ApiOperation({
    operationId: 'scimDeleteGroup',
    summary: 'SCIM: delete a group',
    description:
      'Deletes the group and revokes what it granted: its members keep only the roles they hold directly or through other groups, and leave spaces where they hold none (membership events and audit entries as for any membership change). A deletion that would leave a space without an admin answers 409. Audited.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiScimErrors(404, 412)
  scimDeleteGroup(
    @Param() params: ScimIdParams,
    @Headers('if-match') ifMatch: string | undefined,
    @ScimTokenId() tokenId: string,
  ): Promise<void> {
    return this.groups.delete(params.id, tokenId, ifMatch);
  }
}
