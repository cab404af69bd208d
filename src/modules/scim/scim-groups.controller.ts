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
  'A group is the members of one space holding one role, named `<space-slug>:<role>` (role admin, editor or viewer).';

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
    description: `${MAPPING} Groups created through SCIM, oldest first. Filterable attributes: displayName, externalId, id. \`excludedAttributes=members\` leaves members out.`,
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
    description: `${MAPPING} The space must exist (400 invalidValue otherwise); one group per space and role (409 uniqueness). Members join the space with the group's role. Audited.`,
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
      'The displayName cannot change (400 mutability). `members`, when given, becomes the member list: new members join the space with the role (changing the role they had), removed ones leave the space; without `members` they stay as they are. A space keeps its last admin (409).',
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
      '`op` is case-insensitive. `add` with path `members` adds; `remove` with `members[value eq "<id>"]` or with path `members` and a value list removes; `replace` of `members` sets the list; externalId may change, displayName may not (400 mutability). A space keeps its last admin (409). Audited.',
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
      'Unlinks the group from SCIM; the space memberships it granted stay (remove the members first to revoke access). Audited.',
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
