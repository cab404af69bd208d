import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Client, ClientInfo, CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { NotImpersonated } from '../../common/permissions/not-impersonated.guard';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AuthService } from './auth.service';
import { ImpersonateParams, ImpersonationTokenResponse } from './dto/auth-responses.dto';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Administration')
@ControlPlane()
@Controller('admin/impersonate')
export class ImpersonationController {
  constructor(private readonly auth: AuthService) {}

  @Post(':user_id')
  @SuperadminOnly()
  @NotImpersonated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'impersonateUser',
    summary: 'Act as another user for 15 minutes',
    description:
      'The token carries `act: {sub: <superadmin id>}` and gets 403 on API key management, credential changes, account deletion and impersonation, and 401 on refresh. Superadmins and inactive users cannot be impersonated (403). Every impersonation is audited.',
  })
  @ApiOkResponse({ type: ImpersonationTokenResponse })
  @ApiProblems(404, 422)
  impersonate(
    @CurrentActor() actor: Actor,
    @Param() params: ImpersonateParams,
    @Client() client: ClientInfo,
  ): Promise<ImpersonationTokenResponse> {
    return this.auth.impersonate(actor, params.user_id, client);
  }
}
