import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';

import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';

import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';

import { Page, PageOf, PageQuery } from '../../common/http/page.dto';

import { SlugParams } from '../../common/http/slug-params.dto';

import { ApiProblems } from '../../common/openapi/api-problems.decorator';

import { CurrentSpace } from '../../common/permissions/current-space.decorator';

import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';

import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  DeliveryAttemptResponse,
  DeliveryParams,
  EventTypeCategory,
  ListDeliveriesQuery,
  UpdateWebhookDto,
  WebhookParams,
  WebhookResponse,
  WebhookTestResponse,
} from './dto/webhook.dto';

import { WebhooksService } from './webhooks.service';

class RedeliveryResponse {
  @ApiProperty({ format: 'uuid' }) delivery_id: string;
  @ApiProperty({ enum: ['pending'] }) status: string;
}

const ADMIN_ONLY = "Space Admin only: webhooks send the space's data to outside endpoints.";

@ApiTags('Webhooks')
@Controller('spaces/:slug/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('event-types')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listWebhookEventTypes',
    summary: 'List the event types a webhook can subscribe to, by category',
    description:
      "Every event the API emits about a space. Platform-wide events (accounts, API keys) carry other users' data and are never delivered to a space's webhooks, so they are not listed.",
  })
  @ApiOkResponse({ type: EventTypeCategory, isArray: true })
  eventTypes(@Param() _params: SlugParams): EventTypeCategory[] {
    return this.webhooks.eventTypes();
  }

  @Get()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'List the webhooks of a space',
    description: `${ADMIN_ONLY} Oldest first; \`{items, total}\` with \`skip\`/\`limit\`.`,
  })
  @ApiOkResponse({ type: PageOf(WebhookResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() page: PageQuery,
  ): Promise<Page<WebhookResponse>> {
    return this.webhooks.list(access.space, page);
  }

  @Post()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Subscribe an HTTPS endpoint to events',
    description: `${ADMIN_ONLY} The URL must be HTTPS and must not resolve to a private, loopback or link-local address (422). Deliveries are signed per Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`) with a body \`{type, timestamp, data}\`. Without \`secret\` one is generated and returned only in this response; a supplied \`secret\` is never returned.`,
  })
  @ApiCreatedResponse({ type: CreatedWebhookResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateWebhookDto,
  ): Promise<CreatedWebhookResponse> {
    return this.webhooks.create(actor, access.space, dto);
  }

  @Patch(':id')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change a webhook',
    description: `${ADMIN_ONLY} Only the fields given change.`,
  })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: WebhookParams,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(actor, access.space, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('admin')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook and its delivery log',
    description: ADMIN_ONLY,
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: WebhookParams,
  ): Promise<void> {
    await this.webhooks.delete(actor, access.space, params.id);
  }

  @Post(':id/test')
  @SpaceRole('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Send a synthetic `webhook.test` event now',
    description: `${ADMIN_ONLY} Sent once, synchronously (no retries), and logged like any delivery; answers the status code and response time.`,
  })
  @ApiOkResponse({ type: WebhookTestResponse })
  @ApiProblems(404, 422)
  test(@CurrentSpace() access: SpaceAccess, @Param() params: WebhookParams): Promise<WebhookTestResponse> {
    return this.webhooks.test(access.space, params.id);
  }

  @Get(':id/deliveries')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'Read the delivery log: every attempt, newest first',
    description: `${ADMIN_ONLY} Each row is one attempt with its status, response code, duration, error and times; \`delivery_id\` groups the attempts of one event.`,
  })
  @ApiOkResponse({ type: PageOf(DeliveryAttemptResponse) })
  @ApiProblems(404, 422)
  deliveries(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: WebhookParams,
    @Query() query: ListDeliveriesQuery,
  ): Promise<Page<DeliveryAttemptResponse>> {
    return this.webhooks.listAttempts(access.space, params.id, query.skip ?? 0, query.limit ?? 50);
  }

  @Post(':id/deliveries/:delivery_id/redeliver')
  @SpaceRole('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'redeliverWebhookDelivery',
    summary: 'Deliver a logged delivery again',
    description: `${ADMIN_ONLY} The same delivery (same \`webhook-id\`, same body) is queued again and retried on the usual schedule.`,
  })
  @ApiOkResponse({ type: RedeliveryResponse })
  @ApiProblems(404, 422)
  redeliver(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: DeliveryParams,
  ): Promise<RedeliveryResponse> {
    return this.webhooks.redeliver(access.space, params.id, params.delivery_id);
  }
}
