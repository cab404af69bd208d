import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  ProfileResponse,
  UserDetailResponse,
  UserListResponse,
  UserResponse,
  UserSearchItem,
} from './dto/user-responses.dto';
import {
  ListUsersQuery,
  SearchUsersQuery,
  UpdateMyProfileDto,
  UpdateUserDto,
  UserIdParams,
} from './dto/user-requests.dto';
import { UsersService } from './users.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get('me')
  @Authenticated()
  @ApiOperation({
    operationId: 'getMyProfile',
    summary: 'Get my profile with my spaces',
    description: 'The signed-in user with the spaces they belong to and their role in each.',
  })
  @ApiOkResponse({ type: ProfileResponse })
  getMe(@CurrentActor() actor: Actor): Promise<ProfileResponse> {
    return this.users.getProfile(actor);
  }

  @Patch('me')
  @ControlPlane()
  @Authenticated()
  @ApiOperation({
    operationId: 'updateMyProfile',
    summary: 'Update my name and avatar',
    description: '`avatar_style` takes `initials`, `gravatar` (alias `email_avatar`) or `upload`.',
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiProblems(422)
  updateMe(@CurrentActor() actor: Actor, @Body() dto: UpdateMyProfileDto): Promise<ProfileResponse> {
    return this.users.updateMyProfile(actor, dto);
  }

  @Get('search')
  @Authenticated()
  @ApiOperation({
    operationId: 'searchUsers',
    summary: 'Find users by name or email (at most 10)',
    description:
      'Finds active users who share a space with the caller (the caller included; everyone for a superadmin), or the members of `space_id` when the caller belongs to that space (404 when not, as for any space the caller is not a member of). Ordered by name.',
  })
  @ApiOkResponse({ type: UserSearchItem, isArray: true })
  @ApiProblems(404, 422)
  search(@CurrentActor() actor: Actor, @Query() query: SearchUsersQuery): Promise<UserSearchItem[]> {
    return this.users.search(actor, query);
  }

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users (admin role)',
    description:
      'Superadmins see everyone. A space admin must pass `space_id` of a space they administer and sees its members; anyone else gets 403. `page` is 1-based. `role` narrows to members with that role in `space_id` (without `space_id`, superadmins get users holding that role in any space). `spaces_count` counts all spaces of the user. Ordered by account creation.',
  })
  @ApiOkResponse({ type: UserListResponse })
  @ApiProblems(403, 422)
  list(@CurrentActor() actor: Actor, @Query() query: ListUsersQuery): Promise<UserListResponse> {
    return this.users.list(actor, query);
  }

  @Get(':id')
  @Authenticated()
  @ApiOperation({
    operationId: 'getUser',
    summary: 'Get a user with their spaces and governance roles',
    description:
      'Visible to the user themself, a superadmin, or a user who shares a space with them (who then sees only the shared spaces); anyone else gets 404.',
  })
  @ApiOkResponse({ type: UserDetailResponse })
  @ApiProblems(404, 422)
  get(@CurrentActor() actor: Actor, @Param() params: UserIdParams): Promise<UserDetailResponse> {
    return this.users.getDetail(actor, params.id);
  }

  @Patch(':id')
  @ControlPlane()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Update a user (superadmin), including AI literacy fields',
    description: 'The last active superadmin cannot be demoted or deactivated (409).',
  })
  @ApiOkResponse({ type: UserResponse })
  @ApiProblems(404, 409, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: UserIdParams,
    @Body() dto: UpdateUserDto,
  ): Promise<UserResponse> {
    return this.users.update(actor, params.id, dto);
  }
}
