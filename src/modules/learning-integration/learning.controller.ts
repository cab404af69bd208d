import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Post,
  Put,
  RawBodyRequest,
  Req,
} from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Public } from '../../common/auth/public.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  AiLiteracyEventDto,
  AiLiteracyReceiptResponse,
  LearningIntegrationResponse,
  UpdateLearningIntegrationDto,
} from './dto/learning.dto';
import { LearningIntegrationService } from './learning-integration.service';
import { LearningWebhookService } from './learning-webhook.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Learning integration')
@ControlPlane()
@Controller('admin/integrations/learning')
export class LearningIntegrationController {
  constructor(private readonly integration: LearningIntegrationService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getLearningIntegration',
    summary: 'Read the learning-system webhook settings (superadmin)',
    description:
      'Always answers: `secret_set` false when nothing is configured. The secret is never returned; `endpoint_url` is ' +
      'where the learning system delivers.',
  })
  @ApiOkResponse({ type: LearningIntegrationResponse })
  get(): Promise<LearningIntegrationResponse> {
    return this.integration.get();
  }

  @Put()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateLearningIntegration',
    summary: 'Configure the learning-system webhook (superadmin)',
    description:
      'Creates or updates the settings. `secret` sets a Standard Webhooks secret chosen by the operator; ' +
      '`regenerate_secret: true`, or a first configuration without `secret`, generates one and answers it in `secret` ' +
      'this once (it is sealed at rest and never shown again). Written to the audit log.',
  })
  @ApiOkResponse({ type: LearningIntegrationResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @Body() dto: UpdateLearningIntegrationDto,
  ): Promise<LearningIntegrationResponse> {
    return this.integration.update(actor, dto);
  }

  @Delete()
  @SuperadminOnly()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteLearningIntegration',
    summary: 'Remove the learning-system webhook settings (superadmin)',
    description: 'Deliveries answer 401 afterwards. Idempotent: 204 when nothing was configured.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  delete(@CurrentActor() actor: Actor): Promise<void> {
    return this.integration.delete(actor);
  }
}

@ApiTags('Learning integration')
@Controller('integrations/learning')
export class LearningWebhookController {
  constructor(private readonly webhook: LearningWebhookService) {}

  @Post('ai-literacy')
  @Public({ ignoresCaller: true })
  @HttpCode(200)
  @ApiOperation({
    operationId: 'receiveAiLiteracyWebhook',
    summary: "Inbound: a learning system reports a user's AI literacy training",
    description:
      'Authenticated by its signature, not a bearer token: signed like our outbound webhooks (Standard Webhooks) with the ' +
      'secret a superadmin set under `/admin/integrations/learning`, over the exact body bytes: `webhook-signature` is ' +
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` (several space-separated signatures are ' +
      'accepted). A missing or wrong signature, a `webhook-timestamp` more than 300 seconds from now, or no configured or ' +
      'an enabled-false integration answers 401. The payload is `{type: "ai_literacy.completed" | "ai_literacy.updated", ' +
      'timestamp?, data: {user_id | email, status, program?, completion_date?, next_renewal?}}`; `status` is one of ' +
      '`not_started`, `in_progress`, `completed`, `expired`, fields left out are kept and null clears them. They set the ' +
      "user's `ai_literacy_status`, `ai_literacy_program`, `ai_literacy_completion_date` and `ai_literacy_next_renewal`. " +
      'A user that does not exist answers 422 (nothing is recorded, so a corrected retry applies). A `webhook-id` that was ' +
      'applied before (remembered for 7 days) answers 200 with `status: "duplicate"` and changes nothing. Every applied ' +
      'delivery is written to the audit log (`user.ai_literacy_updated`) and emits `user.updated` when a field changed.',
  })
  @ApiHeader({ name: 'webhook-id', required: true, description: 'The message id (the same on retries).' })
  @ApiHeader({ name: 'webhook-timestamp', required: true, description: 'Unix seconds when it was signed.' })
  @ApiHeader({
    name: 'webhook-signature',
    required: true,
    description: '`v1,<base64 signature>`, space-separated.',
  })
  @ApiBody({ type: AiLiteracyEventDto })
  @ApiOkResponse({ type: AiLiteracyReceiptResponse })
  @ApiProblems(401, 422)
  receive(
    @Req() req: RawBodyRequest<Request>,
    @Headers('webhook-id') id: string | undefined,
    @Headers('webhook-timestamp') timestamp: string | undefined,
    @Headers('webhook-signature') signature: string | undefined,
  ): Promise<AiLiteracyReceiptResponse> {
    return this.webhook.receive({
      headers: { id, timestamp, signature },
      rawBody: req.rawBody,
      body: req.body as unknown,
      ip: req.ip ?? null,
    });
  }
}
