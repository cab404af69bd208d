import { SlugParams } from '../../common/http/slug-params.dto';

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

import { PageOf } from '../../common/http/page.dto';

import type { Page } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import { AddMemberDto, ListMembersQuery, MemberParams, UpdateMemberDto } from './dto/space-requests.dto';
import { MemberResponse } from './dto/space-responses.dto';

import { MembersService } from './members.service';

@ApiTags('Space members')
@Controller('spaces/:slug/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'listSpaceMembers',
    summary: 'List the members of a space (Space Admin)',
    description:
      'In the order they joined. `{items, total}` with `skip`/`limit`. `role` is the effective role, the highest of `direct_role` and the roles of the mapped SCIM groups the member is in; `granted_by` lists where it comes from.',
  })
  @ApiOkResponse({ type: PageOf(MemberResponse) })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListMembersQuery,
  ): Promise<Page<MemberResponse>> {
    return this.members.list(actor, access, query);
  }

  @Post()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'addSpaceMember',
    summary: 'Add a user to a space with a role (Space Admin)',
    description:
      'Grants the role directly. A `user_id` that names no active user answers 422; a user who already holds a direct role answers 409. A member only through SCIM groups gets the direct role beside them (the effective role is the higher of the two).',
  })
  @ApiCreatedResponse({ type: MemberResponse })
  @ApiProblems(409, 422)
  add(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: AddMemberDto,
  ): Promise<MemberResponse> {
    return this.members.add(actor, access, dto);
  }

  @Patch(':user_id')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateSpaceMember',
    summary: "Change a member's role (Space Admin)",
    description:
      "Sets the direct role; the effective role stays at least what the member's mapped SCIM groups grant. Demoting the last admin of the space answers 409. Role changes are written to the audit log.",
  })
  @ApiOkResponse({ type: MemberResponse })
  @ApiProblems(409, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: MemberParams,
    @Body() dto: UpdateMemberDto,
  ): Promise<MemberResponse> {
    return this.members.changeRole(actor, access, params.user_id, dto);
  }

  @Delete(':user_id')
  @SpaceRole('admin')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeSpaceMember',
    summary: 'Remove a member from a space (Space Admin)',
    description:
      'Removes the direct role. A member who also holds a role through mapped SCIM groups stays with that role; one who holds it only through groups answers 409 `granted_by_group` (remove them from the group in the identity provider, or remove the mapping). Removing the last admin answers 409. The product governance roles (owner, steward) the user holds in the space stay until changed on the products.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(409, 422)
  async remove(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: MemberParams,
  ): Promise<void> {
    await this.members.remove(actor, access, params.user_id);
  }
}
