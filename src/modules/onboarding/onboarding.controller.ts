import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { OnboardingResponse, UpdateOnboardingDto } from './dto/onboarding.dto';
import { OnboardingService } from './onboarding.service';

const ITEMS =
  'Items: `profile_completed` (first and last name set), `first_space` (member of any space), `first_product` (owner or steward of a product, or its creator), `first_quality_check` (a quality check exists in one of your spaces), `notification_preferences` (notification preferences saved at least once).';

@ApiTags('Users')
@Controller('users/me/onboarding')
export class OnboardingController {
  constructor(private readonly onboarding: OnboardingService) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'getMyOnboarding',
    summary: 'Get my onboarding checklist and guided-tour state',
    description: `Each item is derived from the real state on every read, so it flips as soon as the thing is done (or undone). ${ITEMS}`,
  })
  @ApiOkResponse({ type: OnboardingResponse })
  getMyOnboarding(@CurrentActor() actor: Actor): Promise<OnboardingResponse> {
    return this.onboarding.get(actor);
  }

  @Patch()
  @Authenticated()
  @ApiOperation({
    operationId: 'updateMyOnboarding',
    summary: 'Dismiss guided tours or the checklist',
    description:
      'Stores the guided-tour state: `dismissed_tours` replaces the list of dismissed tours, `dismissed` hides or shows the checklist. The items themselves cannot be set: they follow the real state. Answers the checklist.',
  })
  @ApiOkResponse({ type: OnboardingResponse })
  @ApiProblems(422)
  updateMyOnboarding(
    @CurrentActor() actor: Actor,
    @Body() dto: UpdateOnboardingDto,
  ): Promise<OnboardingResponse> {
    return this.onboarding.update(actor, dto);
  }
}
