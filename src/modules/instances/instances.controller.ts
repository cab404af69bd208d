import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
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
  CreateInstanceDto,
  DeleteInstanceQuery,
  InstanceMemberParams,
  InstanceMemberResponse,
  InstanceParams,
  InstanceResponse,
  ListInstancesQuery,
  UpdateInstanceDto,
} from './dto/instance.dto';
import { InstancesService } from './instances.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Instances')
@ControlPlane()
@Controller('admin/instances')
export class InstancesController {
  constructor(private readonly instances: InstancesService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listInstances',
    summary: 'List instances',
    description:
      'Oldest first, `default` (the deployment database) included. Database URLs are never returned.',
  })
  @ApiOkResponse({ type: PageOf(InstanceResponse) })
  @ApiProblems(422)
  list(@Query() query: ListInstancesQuery): Promise<Page<InstanceResponse>> {
    return this.instances.list(query.skip ?? 0, query.limit ?? 50);
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createInstance',
    summary: 'Create an instance with its own database',
    description:
      'The database (which must exist) is migrated to the full schema before the instance is stored; an unreachable database answers 503 with Retry-After and nothing is created. A taken slug answers 409. Only superadmins reach the new instance until members are added.',
  })
  @ApiCreatedResponse({ type: InstanceResponse })
  @ApiProblems(409, 422, 503)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateInstanceDto): Promise<InstanceResponse> {
    return this.instances.create(actor, dto);
  }

  @Get(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getInstance',
    summary: 'Get an instance',
    description:
      'One instance: its slug, name, status and whether it has a database URL of its own (the URL is never answered).',
  })
  @ApiOkResponse({ type: InstanceResponse })
  @ApiProblems(404, 422)
  get(@Param() params: InstanceParams): Promise<InstanceResponse> {
    return this.instances.get(params.id);
  }

  @Patch(':id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateInstance',
    summary: 'Rename an instance or move its database',
    description:
      'A new `database_url` is migrated first (503 when unreachable, nothing changes) and the instance pool reconnects to it; its data is not copied. `default` keeps its slug and the deployment database (409).',
  })
  @ApiOkResponse({ type: InstanceResponse })
  @ApiProblems(404, 409, 422, 503)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: InstanceParams,
    @Body() dto: UpdateInstanceDto,
  ): Promise<InstanceResponse> {
    return this.instances.update(actor, params.id, dto);
  }

  @Delete(':id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteInstance',
    summary: 'Delete an instance',
    description:
      'Refused (409 `instance_not_empty`) while its database holds spaces unless `force=true`; the database itself is never dropped. Its memberships, sessions and API keys end with it. `default` cannot be deleted (409); an unreachable database answers 503 unless `force=true`.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 409, 422, 503)
  delete(
    @CurrentActor() actor: Actor,
    @Param() params: InstanceParams,
    @Query() query: DeleteInstanceQuery,
  ): Promise<void> {
    return this.instances.delete(actor, params.id, query.force ?? false);
  }

  @Put(':id/members/:user_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'putInstanceMember',
    summary: 'Let a user reach an instance',
    description:
      'Idempotent. Every user already belongs to `default`, so adding one there stores nothing. Superadmins reach every instance without membership.',
  })
  @ApiOkResponse({ type: InstanceMemberResponse })
  @ApiProblems(404, 422)
  putMember(
    @CurrentActor() actor: Actor,
    @Param() params: InstanceMemberParams,
  ): Promise<InstanceMemberResponse> {
    return this.instances.putMember(actor, params.id, params.user_id);
  }

  @Delete(':id/members/:user_id')
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteInstanceMember',
    summary: 'Remove a user from an instance',
    description:
      'Their tokens and API keys for the instance stop working at once. Removing a non-member answers 204; removing anyone from `default` answers 409.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(404, 409, 422)
  deleteMember(@CurrentActor() actor: Actor, @Param() params: InstanceMemberParams): Promise<void> {
    return this.instances.deleteMember(actor, params.id, params.user_id);
  }
}
