import { SlugParams } from '../../common/http/slug-params.dto';

import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';

import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { PageOf } from '../../common/http/page.dto';

import type { Page } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import { AccessRequestsService } from './access-requests.service';

import {
  AccessRequestParams,
  AccessRequestResponse,
  ApproveAccessRequestDto,
  CreateAccessRequestDto,
  ListAccessRequestsQuery,
  RejectAccessRequestDto,
} from './dto/access-request.dto';

import { ProductParams } from './dto/product-requests.dto';

@ApiTags('Access requests')
@Controller('catalog/spaces/:slug')
export class AccessRequestsController {
  constructor(private readonly requests: AccessRequestsService) {}

  @Post('products/:product_id/access-requests')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'createAccessRequest',
    summary: 'Ask for access to a data product (any member)',
    description:
      'A new request is `pending`. `requested_until` must lie in the future; any offset is accepted and it is stored and answered in UTC. ' +
      'A second pending request by the same user for the same product answers 409.',
  })
  @ApiCreatedResponse({ type: AccessRequestResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductParams,
    @Body() dto: CreateAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    return this.requests.submit(actor, access, params.product_id, dto);
  }

  @Get('access-requests')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listAccessRequests',
    summary: 'List access requests of a space',
    description:
      'Space Admins see every request; other members see their own and those on products they own or steward. Newest first. ' +
      '`status=approved` lists grants still in force, `status=expired` approved grants whose `expires_at` has passed. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(AccessRequestResponse) })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListAccessRequestsQuery,
  ): Promise<Page<AccessRequestResponse>> {
    return this.requests.list(actor, access, query);
  }

  @Post('access-requests/:request_id/approve')
  @SpaceRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'approveAccessRequest',
    summary: "Approve an access request (the product's owners or stewards, or a Space Admin)",
    description:
      'Only a `pending` request can be decided (409 otherwise); anyone else gets 403. `expires_at` (future; any offset, stored in UTC) ' +
      'ends the grant; left out, the requested `requested_until` is used, or the grant does not expire. After `expires_at` the request reads as `expired`.',
  })
  @ApiOkResponse({ type: AccessRequestResponse })
  @ApiProblems(409, 422)
  approve(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: AccessRequestParams,
    @Body() dto: ApproveAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    return this.requests.approve(actor, access, params.request_id, dto);
  }

  @Post('access-requests/:request_id/reject')
  @SpaceRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectAccessRequest',
    summary: "Reject an access request with a reason (the product's owners or stewards, or a Space Admin)",
    description: 'Only a `pending` request can be decided (409 otherwise); anyone else gets 403.',
  })
  @ApiOkResponse({ type: AccessRequestResponse })
  @ApiProblems(409, 422)
  reject(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: AccessRequestParams,
    @Body() dto: RejectAccessRequestDto,
  ): Promise<AccessRequestResponse> {
    return this.requests.reject(actor, access, params.request_id, dto);
  }
}
