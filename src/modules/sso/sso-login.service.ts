import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { ClientInfo } from '../../common/auth/current-actor.decorator';
import { Forbidden, NotFound, Unauthorized } from '../../common/errors/domain-error';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { randomToken, tokenHash } from '../../platform/crypto/tokens';
import { IssuedTokens, SessionsService } from '../accounts/sessions.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { DiscoveredProviderResponse } from './dto/sso-login.dto';
import { SsoAssertion } from './entities/sso-assertion.entity';
import { SsoLoginCode } from './entities/sso-login-code.entity';
import { SsoPendingLogin } from './entities/sso-pending-login.entity';
import { SsoProvider } from './entities/sso-provider.entity';
import { OidcClients, openidClient } from './oidc-clients.registry';
import { PENDING_LOGIN_MS, SAML_CLOCK_SKEW_MS, SamlClients, samlRequestKey } from './saml-clients.registry';
import { assertionFailure, envelopeFailure, SamlFailure, validationFailure } from './saml-failures';
import { assertionFacts, firstString, readEnvelope } from './saml-response';
import { IdpUnavailable, SsoLoginFailed, SsoLoginForbidden, SsoProviderNotFound } from './sso.errors';
import { DEFAULT_OIDC_SCOPES } from './sso.mapper';
import { SsoProvidersService } from './sso-providers.service';
import { SsoUrls } from './sso-urls.service';

export const LOGIN_CODE_MS = 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const oidcStateKey = (state: string) => tokenHash(`oidc:${state}`);
const verifierContext = (keyHash: string) => `sso_pending_logins.code_verifier:${keyHash}`;

interface Identity {
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * What a protocol library threw, for the admin's log: its message and the
 * message of its cause (openid-client wraps the precise oauth4webapi error,
 * such as 'unexpected ID Token "nonce" claim value').
 */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 300);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 300);
}

/**
 * The browser side of SSO: start a login at the identity provider, finish it
 * on the callback (OIDC code flow with PKCE, or a SAML POST), and hand out a
 * one-time code that `exchange` turns into a normal session.
 */
@Injectable()
export class SsoLoginService {
  private readonly logger = new Logger('SSO');

  constructor(
    @InjectRepository(SsoPendingLogin) private readonly pending: Repository<SsoPendingLogin>,
    private readonly providers: SsoProvidersService,
    private readonly oidcClients: OidcClients,
    private readonly samlClients: SamlClients,
    private readonly urls: SsoUrls,
    private readonly tx: TransactionRunner,
    private readonly users: UserDirectoryService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
  ) {}

  async discover(email: string): Promise<DiscoveredProviderResponse> {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    const provider = await this.providers.findEnabledForDomain(domain);
    if (!provider) throw new NotFound(`SSO provider for the domain ${domain}`);
    return {
      provider_id: provider.id,
      name: provider.name,
      protocol: provider.protocol,
      login_url: this.urls.login(provider.id),
    };
  }

  /** The identity provider's URL this browser is sent to. */
  async begin(providerId: string): Promise<string> {
    const provider = await this.providers.findWithSecrets(providerId);
    if (!provider?.isEnabled) throw new SsoProviderNotFound(providerId);
    if (provider.protocol === 'saml') {
      return (await this.samlClients.forProvider(provider)).getAuthorizeUrlAsync('', undefined, {});
    }
    const config = await this.oidcClients.configuration(provider).catch((error: unknown) => {
      this.logger.warn(`SSO provider ${provider.id}: OIDC discovery failed: ${messageOf(error)}`);
      throw new IdpUnavailable();
    });
    const oidc = await openidClient();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const keyHash = oidcStateKey(state);
    await this.pending.insert({
      keyHash,
      providerId: provider.id,
      nonce,
      codeVerifierSealed: this.box.seal(verifier, verifierContext(keyHash)),
      expiresAt: new Date(Date.now() + PENDING_LOGIN_MS),
    });
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: this.urls.callback,
        scope: (provider.oidcScopes ?? DEFAULT_OIDC_SCOPES).join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      })
      .toString();
  }

  /** The OIDC redirect back (`code` and `state`, or `error`): where the browser goes next. */
  finishOidc(query: Record<string, unknown>, client: ClientInfo): Promise<string> {
    return this.guarded(client, async () => {
      const params = Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string');
      const state = typeof query.state === 'string' ? query.state : '';
      if (!state) throw new SsoLoginFailed('state_missing', 'the callback carries no state', null);
      const keyHash = oidcStateKey(state);
      // Single use: the pending login is deleted as it is read.
      const deleted = await this.pending
        .createQueryBuilder()
        .delete()
        .where('key_hash = :keyHash', { keyHash })
        .returning(['providerId', 'nonce', 'codeVerifierSealed', 'expiresAt'])
        .execute();
      const row = (deleted.raw as Record<string, unknown>[])[0] as
        { provider_id: string; nonce: string; code_verifier_sealed: string; expires_at: Date } | undefined;
      if (!row)
        throw new SsoLoginFailed('state_mismatch', 'state mismatch: no pending login has this state', null);
      const provider = await this.usableProvider(row.provider_id);
      if (new Date(row.expires_at).getTime() <= Date.now()) {
        throw new SsoLoginFailed(
          'login_expired',
          'the pending login expired before the callback',
          provider.id,
        );
      }
      if (typeof query.error === 'string') {
        const description = typeof query.error_description === 'string' ? `: ${query.error_description}` : '';
        throw new SsoLoginFailed(
          'idp_error',
          `the identity provider answered ${query.error}${description}`.slice(0, 300),
          provider.id,
        );
      }
      const config = await this.oidcClients.configuration(provider).catch((error: unknown) => {
        throw new SsoLoginFailed(
          'discovery_failed',
          `OIDC discovery failed: ${messageOf(error)}`,
          provider.id,
        );
      });
      const oidc = await openidClient();
      const currentUrl = new URL(this.urls.callback);
      for (const [name, value] of params) currentUrl.searchParams.set(name, value);
      // The library checks state, PKCE, the ID token's signature, issuer, audience, expiry and nonce.
      const tokens = await oidc
        .authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: this.box.open(row.code_verifier_sealed, verifierContext(keyHash)),
          expectedState: state,
          expectedNonce: row.nonce,
          idTokenExpected: true,
        })
        .catch((error: unknown) => {
          throw new SsoLoginFailed(
            'token_invalid',
            `code exchange or ID token validation failed: ${messageOf(error)}`,
            provider.id,
          );
        });
      const claims = tokens.claims()!;
      let profile: Record<string, unknown> = claims;
      if (typeof claims.email !== 'string') {
        profile = await oidc
          .fetchUserInfo(config, tokens.access_token, claims.sub)
          .catch((error: unknown) => {
            throw new SsoLoginFailed(
              'userinfo_failed',
              `UserInfo request failed: ${messageOf(error)}`,
              provider.id,
            );
          });
      }
      const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : '';
      if (!EMAIL.test(email))
        throw new SsoLoginFailed('no_email', 'the identity provider sent no email address', provider.id);
      if (profile.email_verified !== true) {
        throw new SsoLoginFailed(
          'email_unverified',
          'the identity provider did not mark the email as verified',
          provider.id,
          email,
        );
      }
      return this.complete(
        provider,
        {
          email,
          firstName: firstString(profile, ['given_name']) ?? '',
          lastName: firstString(profile, ['family_name']) ?? '',
        },
        client,
      );
    });
  }

  /** The SAML HTTP-POST binding: where the browser goes next. */
  finishSaml(samlResponse: string, client: ClientInfo): Promise<string> {
    return this.guarded(client, async () => {
      const envelope = readEnvelope(samlResponse);
      if (!envelope) {
        throw new SsoLoginFailed(
          'malformed_response',
          'the SAMLResponse is not a SAML Response document',
          null,
        );
      }
      if (!envelope.inResponseTo) {
        throw new SsoLoginFailed(
          'unsolicited_response',
          'unsolicited response: it answers no AuthnRequest (InResponseTo)',
          null,
        );
      }
      const pending = await this.pending.findOneBy({ keyHash: samlRequestKey(envelope.inResponseTo) });
      if (!pending) {
        throw new SsoLoginFailed('unknown_request', 'InResponseTo matches no pending AuthnRequest', null);
      }
      const provider = await this.usableProvider(pending.providerId);
      const fail = (failure: SamlFailure) => new SsoLoginFailed(failure.code, failure.message, provider.id);
      if (pending.expiresAt.getTime() <= Date.now()) {
        throw fail({
          code: 'request_expired',
          message: `the AuthnRequest was sent more than ${PENDING_LOGIN_MS / 60_000} minutes ago`,
        });
      }
      const expected = {
        acsUrl: this.urls.callback,
        allowSha1: provider.samlAllowSha1Signatures,
        idpEntityId: provider.samlIdpEntityId,
      };
      const refused = envelopeFailure(envelope, expected);
      if (refused) throw fail(refused);
      // node-saml checks the signature against idp_certificate, audience, NotBefore/NotOnOrAfter and
      // that InResponseTo (of the response and of the subject) is this pending request.
      const { profile } = await (
        await this.samlClients.forProvider(provider, pending)
      )
        .validatePostResponseAsync({ SAMLResponse: samlResponse })
        .catch((error: unknown) => {
          throw fail(validationFailure(error, envelope, Date.now(), SAML_CLOCK_SKEW_MS));
        });
      const facts = profile ? assertionFacts(profile) : null;
      if (!facts) throw fail({ code: 'no_assertion', message: 'the response holds no assertion' });
      const wrong = assertionFailure(facts, envelope, expected);
      if (wrong) throw fail(wrong);
      const assertionId = facts.id!; // assertionFailure refused an assertion without one
      // Remembered at least until the assertion expires (then it is refused anyway).
      const keepUntil = Math.max(
        Date.now() + PENDING_LOGIN_MS,
        facts.notOnOrAfter ? Date.parse(facts.notOnOrAfter) || 0 : 0,
      );
      // Both are spent in the transaction that issues the code: a concurrent second post waits, then finds them gone.
      const consume = async (em: EntityManager) => {
        const answered = await em
          .getRepository(SsoPendingLogin)
          .delete({ keyHash: pending.keyHash, providerId: provider.id });
        if (!answered.affected) {
          throw fail({
            code: 'replayed_response',
            message: 'the AuthnRequest was already answered (replayed response)',
          });
        }
        const stored = await em
          .getRepository(SsoAssertion)
          .createQueryBuilder()
          .insert()
          .values({ providerId: provider.id, assertionId, expiresAt: new Date(keepUntil) })
          .orIgnore()
          .returning(['assertionId'])
          .execute();
        if (!(stored.raw as unknown[]).length) {
          throw fail({
            code: 'replayed_assertion',
            message: 'replayed assertion: its ID was accepted before',
          });
        }
      };
      return this.complete(
        provider,
        { email: facts.email, firstName: facts.firstName, lastName: facts.lastName },
        client,
        consume,
      );
    });
  }

  /** The one-time code for tokens, exactly as `POST /auth/token` answers: a new session. */
  async exchange(code: string, client: ClientInfo): Promise<IssuedTokens> {
    const outcome = await this.tx.run(async (em) => {
      const deleted = await em
        .getRepository(SsoLoginCode)
        .createQueryBuilder()
        .delete()
        .where('code_hash = :hash', { hash: tokenHash(code) })
        .returning(['userId', 'providerId', 'expiresAt'])
        .execute();
      const row = (deleted.raw as { user_id: string; provider_id: string; expires_at: Date }[])[0];
      if (!row || new Date(row.expires_at).getTime() <= Date.now()) return { error: 'invalid' } as const;
      const user = await this.users.findById(em, row.user_id);
      if (!user) return { error: 'invalid' } as const;
      if (!user.isActive) return { error: 'inactive' } as const;
      await this.users.markLoggedIn(em, user.id);
      // SSO logins land on `default`; POST /auth/switch-instance moves on without signing in again.
      const tokens = await this.sessions.start(em, user.id, client);
      await this.audit.record(em, null, {
        action: 'auth.login',
        actorId: user.id,
        resourceType: 'user',
        resourceId: user.id,
        ip: client.ip,
        details: { method: 'sso', provider_id: row.provider_id },
      });
      return { tokens } as const;
    });
    if (outcome.error === 'inactive') throw new Forbidden('This account is deactivated.', 'account_inactive');
    if (outcome.error) {
      throw new Unauthorized('The sign-in code is invalid, already used or expired.', 'sso_code_invalid');
    }
    return outcome.tokens;
  }

  /** SP metadata of a SAML provider (enabled or not: admins register it at the IdP before enabling). */
  async metadata(providerId: string): Promise<string> {
    const provider = await this.providers.findWithSecrets(providerId);
    if (provider?.protocol !== 'saml') throw new NotFound('SAML provider', providerId);
    return this.samlClients.metadata(provider);
  }

  private async usableProvider(id: string): Promise<SsoProvider> {
    const provider = await this.providers.findWithSecrets(id);
    if (!provider?.isEnabled)
      throw new SsoLoginFailed('provider_disabled', 'the provider was disabled or deleted', id);
    return provider;
  }

  /** A verified identity: the account it signs in (created just in time when allowed) and its one-time code. */
  private async complete(
    provider: SsoProvider,
    identity: Identity,
    client: ClientInfo,
    consume?: (em: EntityManager) => Promise<void>,
  ): Promise<string> {
    const outcome = await this.tx.run(
      async (em): Promise<{ code: string } | { refused: 'unknown' | 'pending' | 'inactive' }> => {
        await consume?.(em);
        let user = await this.users.findByEmailForLogin(em, identity.email);
        let provisioned = false;
        if (!user) {
          if (!provider.jitProvisioning) return { refused: 'unknown' };
          user = await this.users.create(
            em,
            {
              email: identity.email,
              passwordHash: null,
              firstName: identity.firstName.slice(0, 100),
              lastName: identity.lastName.slice(0, 100),
              isActive: provider.defaultRole === 'user',
              isSuperadmin: false,
            },
            null,
          );
          provisioned = true;
          await this.audit.record(em, null, {
            action: 'sso.user_provisioned',
            actorId: user.id,
            resourceType: 'user',
            resourceId: user.id,
            ip: client.ip,
            details: { provider_id: provider.id, email: user.email, default_role: provider.defaultRole },
          });
        }
        if (!user.isActive) return { refused: provisioned ? 'pending' : 'inactive' };
        const code = randomToken('vsc_');
        await em.getRepository(SsoLoginCode).insert({
          codeHash: tokenHash(code),
          userId: user.id,
          providerId: provider.id,
          expiresAt: new Date(Date.now() + LOGIN_CODE_MS),
        });
        await this.audit.record(em, null, {
          action: 'sso.login',
          actorId: user.id,
          resourceType: 'sso_provider',
          resourceId: provider.id,
          ip: client.ip,
          details: { provider_id: provider.id, protocol: provider.protocol, email: user.email, provisioned },
        });
        return { code };
      },
    );
    if ('code' in outcome) return this.urls.complete({ code: outcome.code });
    const { email } = identity;
    if (outcome.refused === 'unknown') {
      throw new SsoLoginForbidden(
        'No account exists for this email address, and this identity provider does not create accounts: ask an administrator to invite you.',
        'sso_account_unknown',
        'unknown user and just-in-time provisioning is off',
        provider.id,
        email,
      );
    }
    throw new SsoLoginForbidden(
      outcome.refused === 'pending'
        ? 'Your account was created and awaits activation by an administrator.'
        : 'This account is deactivated.',
      outcome.refused === 'pending' ? 'account_pending' : 'account_inactive',
      outcome.refused === 'pending'
        ? 'account created inactive (default_role pending)'
        : 'account deactivated',
      provider.id,
      email,
    );
  }

  /** Refusals are logged for the admin (cause and provider, never tokens) and audited, then answered. */
  private async guarded(client: ClientInfo, work: () => Promise<string>): Promise<string> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SsoLoginFailed || error instanceof SsoLoginForbidden) {
        const { reasonCode } = error;
        this.logger.warn(
          `SSO login refused (provider ${error.providerId ?? 'unknown'}): ${reasonCode}: ${error.reason}`,
        );
        await this.tx.run((em) =>
          this.audit.record(em, null, {
            action: 'sso.login_failed',
            resourceType: 'sso_provider',
            resourceId: error.providerId,
            ip: client.ip,
            details: {
              provider_id: error.providerId,
              reason: reasonCode,
              cause: error.reason,
              status: error.status,
              ...(error.email ? { email: error.email } : {}),
            },
          }),
        );
      }
      throw error;
    }
  }
}
