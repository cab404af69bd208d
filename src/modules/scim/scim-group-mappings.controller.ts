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
import { Page, PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreateScimGroupMappingDto,
  ListScimGroupMappingsQuery,
  ScimGroupMappingParams,
  ScimGroupMappingResponse,
  UpdateScimGroupMappingDto,
} from './dto/scim-group-mapping.dto';
import { ScimGroupMappingsService } from './scim-group-mappings.service';

const EFFECTIVE =
  "A member's role in a space is the highest of the role granted to them directly and the roles of the mapped SCIM groups they are in; the change applies at once to every member of the group (membership events and audit entries as for any membership change).";

@ApiTags('Administration')
@Controller('admin/scim-group-mappings')
export class ScimGroupMappingsController {
  constructor(private readonly mappings: ScimGroupMappingsService) {}

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createScimGroupMapping',
    summary: 'Map a SCIM group to a role in a space',
    description: `${EFFECTIVE} One mapping per group and space (409 otherwise); an unknown group or space answers 422. A group created through SCIM as \`<space-slug>:<role>\` of an existing space gets its mapping at creation. Audited.`,
  })
  @ApiCreatedResponse({ type: ScimGroupMappingResponse })
  @ApiProblems(409, 422)
  createScimGroupMapping(
    @CurrentActor() actor: Actor,
    @Body() dto: CreateScimGroupMappingDto,
  ): Promise<ScimGroupMappingResponse> {
    return this.mappings.create(actor, dto);
  }

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listScimGroupMappings',
    summary: 'List SCIM group mappings',
    description: 'Oldest first; filter by `group_id` or `space` (slug).',
  })
  @ApiOkResponse({ type: PageOf(ScimGroupMappingResponse) })
  @ApiProblems(422)
  listScimGroupMappings(
    @CurrentActor() actor: Actor,
    @Query() query: ListScimGroupMappingsQuery,
  ): Promise<Page<ScimGroupMappingResponse>> {
    return this.mappings.list(actor, query);
  }

  @Patch(':mapping_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateScimGroupMapping',
    summary: 'Change the role a SCIM group grants in a space',
    description: `${EFFECTIVE} A change that would leave the space without an admin answers 409. Audited.`,
  })
  @ApiOkResponse({ type: ScimGroupMappingResponse })
  @ApiProblems(404, 409, 422)
  updateScimGroupMapping(
    @CurrentActor() actor: Actor,
    @Param() params: ScimGroupMappingParams,
    @Body() dto: UpdateScimGroupMappingDto,
  ): Promise<ScimGroupMappingResponse> {
    return this.mappings.update(actor, params.mapping_id, dto);
  }

  @Delete(':mapping_id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteScimGroupMapping',
    summary: 'Remove a SCIM group mapping',
    description: `The group's members lose the role it granted and keep their other grants; members with no other grant leave the space. Removing the last admin of the space answers 409. Audited.`,
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(404, 409, 422)
  deleteScimGroupMapping(
    @CurrentActor() actor: Actor,
    @Param() params: ScimGroupMappingParams,
  ): Promise<void> {
    return this.mappings.delete(actor, params.mapping_id);
  }
}
