import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiSeeOtherResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Client, ClientInfo } from '../../common/auth/current-actor.decorator';
import { Public } from '../../common/auth/public.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TokenResponse } from '../accounts/dto/auth-responses.dto';
import { setRefreshCookie } from '../accounts/refresh-cookie';
import {
  DiscoverQuery,
  DiscoveredProviderResponse,
  ExchangeCodeDto,
  SamlCallbackDto,
  SsoRedirectResponse,
} from './dto/sso-login.dto';
import { SsoProviderParams } from './dto/sso-provider.dto';
import { SsoLoginService } from './sso-login.service';
import { ControlPlane } from '../../common/auth/control-plane.decorator';

const AS_JSON =
  'With `Accept: application/json` the answer is `200 {location}` instead of the redirect, for a web app that drives the steps itself.';

/** Redirects a browser; describes the redirect to a client that asked for JSON. No answer is cached: it may carry a code. */
function redirect(req: Request, res: Response, status: 302 | 303, location: string): void {
  res.setHeader('Cache-Control', 'no-store');
  if (req.accepts(['html', 'json']) === 'json') {
    res.status(200).json({ location } satisfies SsoRedirectResponse);
    return;
  }
  res.redirect(status, location);
}

const LOCATION = { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } };
const FINISH =
  'On success the browser is redirected to `{PUBLIC_BASE_URL}/sso/complete?code=…`: a one-time code, valid 60 seconds, that the web app turns into tokens with `POST /sso/exchange`. A refused login answers a problem instead of a redirect: 401 with a generic detail for any failed check (the exact cause is logged at warn and written to the audit log for the admin: `details.reason`, a stable code such as `signature_invalid`, `sha1_signature`, `assertion_expired`, `assertion_not_yet_valid`, `audience_mismatch`, `wrong_recipient`, `wrong_destination`, `wrong_issuer`, `idp_status`, `replayed_assertion` or `replayed_response`, and `details.cause`, a sentence; never assertion content beyond the email of a verified identity), 403 when the verified person may not sign in (unknown email without just-in-time provisioning, deactivated account, or an account created by `default_role: pending` that awaits activation). Every attempt is audited (`sso.login`, `sso.login_failed`). ' +
  AS_JSON;

@ApiTags('SSO')
@ControlPlane()
@Controller('sso')
export class SsoLoginController {
  constructor(
    private readonly logins: SsoLoginService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('discover')
  @Public()
  @ApiOperation({
    operationId: 'discoverSsoProvider',
    summary: 'Find the SSO provider for an email address (home-realm discovery)',
    description:
      "The enabled provider whose `domains` include the address's domain; 404 when none does (sign in with a password).",
  })
  @ApiOkResponse({ type: DiscoveredProviderResponse })
  @ApiProblems(404, 422)
  discover(@Query() query: DiscoverQuery): Promise<DiscoveredProviderResponse> {
    return this.logins.discover(query.email);
  }

  @Get('login/:id')
  @Public({ ignoresCaller: true })
  @ApiOperation({
    operationId: 'startSsoLogin',
    summary: 'Start signing in with an identity provider',
    description:
      'Redirects (302) to the identity provider: OIDC authorization code flow with PKCE (S256), `state` and `nonce` kept server-side for 10 minutes; SAML SP-initiated HTTP-Redirect with an AuthnRequest (signed with RSA-SHA256 when `sign_authn_requests`) whose NameIDPolicy asks for the provider setting `name_id_format` (`unspecified` unless set). A disabled or unknown provider answers 404; an OIDC issuer whose discovery fails answers 502. ' +
      AS_JSON,
  })
  @ApiFoundResponse({ description: 'To the identity provider.', headers: LOCATION })
  @ApiOkResponse({ type: SsoRedirectResponse, description: 'Asked with `Accept: application/json`.' })
  @ApiProblems(404, 422, 502)
  async login(@Param() params: SsoProviderParams, @Req() req: Request, @Res() res: Response): Promise<void> {
    redirect(req, res, 302, await this.logins.begin(params.id));
  }

  @Get('callback')
  @Public({ ignoresCaller: true })
  @ApiOperation({
    operationId: 'finishOidcLogin',
    summary: 'OIDC redirect URI: finish an SSO login',
    description: `The identity provider sends the browser here with \`code\` and \`state\` (or \`error\`). The code is exchanged with the PKCE verifier, and the ID token's signature, issuer, audience, expiry and nonce are checked; the email must be verified (\`email_verified\`). ${FINISH}`,
  })
  @ApiQuery({ name: 'code', required: false, type: String })
  @ApiQuery({ name: 'state', required: false, type: String })
  @ApiQuery({ name: 'error', required: false, type: String })
  @ApiFoundResponse({ description: 'To `{PUBLIC_BASE_URL}/sso/complete?code=…`.', headers: LOCATION })
  @ApiOkResponse({ type: SsoRedirectResponse, description: 'Asked with `Accept: application/json`.' })
  @ApiProblems(401, 403)
  async oidcCallback(@Req() req: Request, @Client() client: ClientInfo, @Res() res: Response): Promise<void> {
    redirect(req, res, 302, await this.logins.finishOidc(req.query as Record<string, unknown>, client));
  }

  @Post('callback')
  @Public({ ignoresCaller: true })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: SamlCallbackDto })
  @ApiOperation({
    operationId: 'finishSamlLogin',
    summary: 'SAML Assertion Consumer Service (HTTP-POST binding): finish an SSO login',
    description: `Takes the form post of \`SAMLResponse\` (and \`RelayState\`, ignored). It must answer a pending AuthnRequest of this service (InResponseTo, once, within 10 minutes); the assertion must be signed with the provider's \`idp_certificate\`, name \`saml.issuer\` as its audience and this URL as Recipient (and Destination when present), be within NotBefore/NotOnOrAfter, and its ID is accepted only once. SHA-1 signatures and digests are refused unless the provider sets \`allow_sha1_signatures\`; when \`idp_entity_id\` is set, the Issuer must be it. A Response whose status is not Success is refused, its status codes and StatusMessage audited. The email comes from an attribute named \`email\`, \`mail\`, \`emailAddress\`, \`urn:oid:0.9.2342.19200300.100.1.3\` or \`http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress\`, else from an emailAddress NameID, else from the \`http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name\` claim when it is an address (Azure AD's user principal name). Names of accounts created just in time come from \`givenName\`/\`firstName\`/\`urn:oid:2.5.4.42\`/the \`givenname\` claim and \`sn\`/\`surname\`/\`lastName\`/\`urn:oid:2.5.4.4\`/the \`surname\` claim (also their \`urn:mace:dir:attribute-def:\` forms); without either, a display name (\`displayName\`, \`urn:oid:2.16.840.1.113730.3.1.241\`, \`http://schemas.microsoft.com/identity/claims/displayname\`, or a \`name\` claim that is not an address) is split at its first space. Bodies are limited to 100 kB. ${FINISH}`,
  })
  @ApiSeeOtherResponse({ description: 'To `{PUBLIC_BASE_URL}/sso/complete?code=…`.', headers: LOCATION })
  @ApiOkResponse({ type: SsoRedirectResponse, description: 'Asked with `Accept: application/json`.' })
  @ApiProblems(401, 403, 422)
  async samlCallback(
    @Body() form: SamlCallbackDto,
    @Client() client: ClientInfo,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // 303: the browser follows with a GET, not a second POST of the assertion.
    redirect(req, res, 303, await this.logins.finishSaml(form.SAMLResponse, client));
  }

  @Post('exchange')
  @Public({ ignoresCaller: true })
  @HttpCode(200)
  @ApiOperation({
    operationId: 'exchangeSsoCode',
    summary: 'Turn the one-time SSO code into tokens',
    description:
      'Answers exactly like `POST /auth/token`: `{access_token, token_type, expires_in, refresh_token}` for a new session, `Cache-Control: no-store`, and the refresh cookie (SameSite per REFRESH_COOKIE_SAMESITE, Strict by default; see `POST /auth/token`). A bad, used or expired code answers 401; a deactivated account 403.',
  })
  @ApiOkResponse({ type: TokenResponse })
  @ApiProblems(401, 403, 422)
  async exchange(
    @Body() dto: ExchangeCodeDto,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TokenResponse> {
    return setRefreshCookie(res, await this.logins.exchange(dto.code, client), this.config);
  }
}
