import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { ResearchConsentsService } from './research-consents.service';
import { ConsentIdParams, ConsentResponse } from './dto/authoring.dto';

@ApiTags('Pipeline authoring')
@Controller('ai/consents')
export class ResearchConsentsController {
  constructor(private readonly consents: ResearchConsentsService) {}

  @Get(':id')
  @Authenticated()
  @ApiOperation({
    operationId: 'getConsent',
    summary: 'Get a web-search consent (its own user only)',
    description: "Another user's consent is 404. A pending consent past `expires_at` reads as `expired`.",
  })
  @ApiOkResponse({ type: ConsentResponse })
  @ApiProblems(404, 422)
  get(@CurrentActor() actor: Actor, @Param() params: ConsentIdParams): Promise<ConsentResponse> {
    return this.consents.get(actor, params.id);
  }

  @Post(':id/approve')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'approveConsent',
    summary: 'Approve a web-search consent (its own user only)',
    description:
      'Grants its scope (user, space, definition, root task, binding, provider) for 24 hours from now; `expires_at` ' +
      "becomes the grant's end. Another user's consent is 404; one already approved or rejected is 409; one that " +
      'lapsed undecided (24 h after it was asked) is 409 `consent_expired`: search again to be asked anew. Deleting the ' +
      'binding or the provider revokes the grant.',
  })
  @ApiOkResponse({ type: ConsentResponse })
  @ApiProblems(404, 409, 422)
  approve(@CurrentActor() actor: Actor, @Param() params: ConsentIdParams): Promise<ConsentResponse> {
    return this.consents.approve(actor, params.id);
  }

  @Post(':id/reject')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectConsent',
    summary: 'Reject a web-search consent (its own user only)',
    description:
      "Nothing is granted; the next search for the same scope asks again with a new consent. Another user's consent " +
      'is 404; a decided one is 409; a lapsed one is 409 `consent_expired`.',
  })
  @ApiOkResponse({ type: ConsentResponse })
  @ApiProblems(404, 409, 422)
  reject(@CurrentActor() actor: Actor, @Param() params: ConsentIdParams): Promise<ConsentResponse> {
    return this.consents.reject(actor, params.id);
  }
}
