import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor, PrefetchedOwnUser } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { PreferencesResponse, UpdatePreferencesDto } from './dto/preferences.dto';
import { UsersService } from './users.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Preferences')
@ControlPlane()
@Controller('preferences')
export class PreferencesController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Authenticated({ withOwnUser: true })
  @ApiOperation({
    operationId: 'getPreferences',
    summary: 'Get my preferences, defaults filled in',
    description: 'Every preference of the signed-in user; those never set come with their defaults.',
  })
  @ApiOkResponse({ type: PreferencesResponse })
  get(
    @CurrentActor() actor: Actor,
    @PrefetchedOwnUser() own: OwnUserRow | undefined,
  ): Promise<PreferencesResponse> {
    return this.users.getPreferences(actor, own);
  }

  @Patch()
  @Authenticated()
  @ApiOperation({
    operationId: 'updatePreferences',
    summary: 'Change some preferences',
    description:
      'Takes a partial object of the same shape as the read (`{notifications: {...}, ui: {...}}`); only the keys given change, and an unknown key answers 422.',
  })
  @ApiOkResponse({ type: PreferencesResponse })
  @ApiProblems(422)
  update(@CurrentActor() actor: Actor, @Body() dto: UpdatePreferencesDto): Promise<PreferencesResponse> {
    return this.users.updatePreferences(actor, dto);
  }
}
