import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import {
  Client,
  ClientInfo,
  CurrentActor,
  OptionalActor,
  PrefetchedOwnUser,
} from '../../common/auth/current-actor.decorator';
import { Public } from '../../common/auth/public.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { NoRateLimit } from '../../common/http/rate-limit.decorators';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { NotImpersonated } from '../../common/permissions/not-impersonated.guard';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { AvailableInstanceResponse, SwitchInstanceDto } from '../instances/dto/instance.dto';
import { UserResponse } from '../users/dto/user-responses.dto';
import { AuthService } from './auth.service';
import {
  ChangePasswordDto,
  ForgotPasswordDto,
  RefreshRequestDto,
  RegisterDto,
  ResetPasswordDto,
  TokenRequestDto,
  UpdateAccountDto,
} from './dto/auth-requests.dto';
import { MessageResponse, TokenResponse } from './dto/auth-responses.dto';
import { clearRefreshCookie, REFRESH_COOKIE, REFRESH_COOKIE_DOC, setRefreshCookie } from './refresh-cookie';
import { IssuedTokens } from './sessions.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

@ApiTags('Accounts')
@ControlPlane()
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('register')
  @Public()
  @ApiOperation({
    operationId: 'register',
    summary: 'Create an account',
    description:
      'Open unless REGISTRATION_OPEN=false. `is_superadmin: true` or `is_active: false` need an authenticated superadmin, except for the very first account (bootstrap of the first superadmin); otherwise 403. A duplicate email answers 409.',
  })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiProblems(403, 409, 422)
  register(
    @OptionalActor() actor: Actor | undefined,
    @Body() dto: RegisterDto,
    @Client() client: ClientInfo,
  ): Promise<UserResponse> {
    return this.auth.register(actor, dto, client);
  }

  @Post('token')
  @Public()
  @NoRateLimit()
  @HttpCode(200)
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: TokenRequestDto })
  @ApiOperation({
    operationId: 'createToken',
    summary: 'Sign in (OAuth2 password form)',
    description:
      'Answers 401 with the same detail for an unknown email and a wrong password, 403 for a deactivated account or an `instance` you are not a member of, 404 for an unknown `instance`, and 429 with Retry-After after 10 failures for one email within 15 minutes. Exempt from the general rate limits. ' +
      REFRESH_COOKIE_DOC,
  })
  @ApiOkResponse({ type: TokenResponse })
  @ApiProblems(401, 403, 404, 422, 429)
  async token(
    @Body() form: TokenRequestDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TokenResponse> {
    return this.withRefreshCookie(res, await this.auth.login(form, client));
  }

  @Post('refresh')
  @Public()
  @NoRateLimit()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'refreshToken',
    summary: 'Exchange a refresh token for new tokens',
    description:
      'Takes the refresh token from the body, else from the cookie. Tokens rotate on every use; presenting an already-rotated token ends the whole session (401). Impersonation tokens get 401. Exempt from the general rate limits. ' +
      REFRESH_COOKIE_DOC,
  })
  // The refresh cookie suffices: the body is optional.
  @ApiBody({ type: RefreshRequestDto, required: false })
  @ApiOkResponse({ type: TokenResponse })
  @ApiProblems(401, 422)
  async refresh(
    @OptionalActor() actor: Actor | undefined,
    @Body() dto: RefreshRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TokenResponse> {
    // Parsed here, its one reader, rather than for every request by a middleware.
    const token = dto.refresh_token ?? parseCookies(req.headers.cookie ?? '')[REFRESH_COOKIE];
    return this.withRefreshCookie(res, await this.auth.refresh(actor, token));
  }

  @Post('logout')
  @Authenticated()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'logout',
    summary: 'End the current session',
    description: 'Its access and refresh tokens stop working at once.',
  })
  @ApiNoContentResponse({ description: 'Signed out.' })
  async logout(@CurrentActor() actor: Actor, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.auth.logout(actor);
    clearRefreshCookie(res, this.config);
  }

  @Get('me')
  @Authenticated({ withOwnUser: true })
  @ApiOperation({
    operationId: 'getCurrentUser',
    summary: 'Get the signed-in user',
    description: 'The account the credential belongs to (under impersonation, the impersonated user).',
  })
  @ApiOkResponse({ type: UserResponse })
  me(@CurrentActor() actor: Actor, @PrefetchedOwnUser() own: OwnUserRow | undefined): Promise<UserResponse> {
    return this.auth.me(actor, own);
  }

  @Patch('me')
  @Authenticated()
  @ApiOperation({
    operationId: 'updateCurrentUser',
    summary: 'Update my name and avatar',
    description:
      '`full_name` is split at the first space into first and last name. `avatar_type` takes `initials`, `gravatar` (alias `email_avatar`; the URL is derived from the MD5 of the email) or `upload` (with an HTTPS `avatar_url`).',
  })
  @ApiOkResponse({ type: UserResponse })
  @ApiProblems(422)
  updateMe(@CurrentActor() actor: Actor, @Body() dto: UpdateAccountDto): Promise<UserResponse> {
    return this.auth.updateAccount(actor, dto);
  }

  @Delete('me')
  @Authenticated()
  @NotImpersonated()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deactivateCurrentUser',
    summary: 'Deactivate my account',
    description: 'Revokes every session and API key of the account.',
  })
  @ApiNoContentResponse({ description: 'Deactivated.' })
  async deleteMe(
    @CurrentActor() actor: Actor,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.auth.deactivateSelf(actor, client);
    clearRefreshCookie(res, this.config);
  }

  @Post('forgot-password')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'forgotPassword',
    summary: 'Email a password reset link',
    description:
      'Always answers the same sentence, whether or not the address has an account. The token is single-use and valid for one hour.',
  })
  @ApiOkResponse({ type: MessageResponse })
  @ApiProblems(422)
  forgotPassword(@Body() dto: ForgotPasswordDto): Promise<MessageResponse> {
    return this.auth.forgotPassword(dto.email);
  }

  @Post('reset-password')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resetPassword',
    summary: 'Set a new password with an emailed token',
    description: 'A bad, used or expired token answers 400. A reset signs out every session of the account.',
  })
  @ApiOkResponse({ type: MessageResponse })
  @ApiProblems(400, 422)
  resetPassword(@Body() dto: ResetPasswordDto): Promise<MessageResponse> {
    return this.auth.resetPassword(dto);
  }

  @Post('change-password')
  @Authenticated()
  @NotImpersonated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'changePassword',
    summary: 'Change my password',
    description: 'Needs the current password (400 when wrong) and signs out the other sessions.',
  })
  @ApiOkResponse({ type: MessageResponse })
  @ApiProblems(400, 422)
  changePassword(
    @CurrentActor() actor: Actor,
    @Body() dto: ChangePasswordDto,
    @Client() client: ClientInfo,
  ): Promise<MessageResponse> {
    return this.auth.changePassword(actor, dto, client);
  }

  @Get('instances')
  @Authenticated()
  @ApiOperation({
    operationId: 'listMyInstances',
    summary: 'List the instances I can reach',
    description:
      '`default` first, then oldest first. Every user reaches `default` and the instances they are a member of; superadmins reach every instance. `is_current` marks the instance of this credential.',
  })
  @ApiOkResponse({ type: PageOf(AvailableInstanceResponse) })
  @ApiProblems(422)
  instances(
    @CurrentActor() actor: Actor,
    @Query() query: PageQuery,
  ): Promise<Page<AvailableInstanceResponse>> {
    return this.auth.listInstances(actor, query.skip ?? 0, query.limit ?? 50);
  }

  @Post('switch-instance')
  @Authenticated()
  @NotImpersonated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'switchInstance',
    summary: 'Get tokens for another instance without signing in again',
    description:
      'Cross-instance single sign-on: answers exactly like `POST /auth/token` (a new session on the named instance, with `ins` in the access token and a refresh token that keeps the instance, also set as the cookie). The current session stays valid. 404 for an unknown instance, 403 when you are not a member of it, and 403 for API keys, which belong to one instance; 503 with Retry-After while its database is unavailable.',
  })
  @ApiOkResponse({ type: TokenResponse })
  @ApiProblems(404, 422, 503)
  async switchInstance(
    @CurrentActor() actor: Actor,
    @Body() dto: SwitchInstanceDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TokenResponse> {
    return this.withRefreshCookie(res, await this.auth.switchInstance(actor, dto, client));
  }

  private withRefreshCookie(res: Response, tokens: IssuedTokens): IssuedTokens {
    return setRefreshCookie(res, tokens, this.config);
  }
}
