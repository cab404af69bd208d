import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import type { ClientInfo } from '../../common/auth/current-actor.decorator';
import {
  BadRequest,
  Forbidden,
  NotFound,
  TooManyRequests,
  Unauthorized,
} from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { PasswordHasher } from '../../platform/crypto/password-hasher.service';
import { randomToken, tokenHash } from '../../platform/crypto/tokens';
import { MailerService } from '../../platform/mail/mailer.service';
import { renderMail } from '../../platform/mail/templates';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AvailableInstanceResponse, SwitchInstanceDto } from '../instances/dto/instance.dto';
import { InstancesService } from '../instances/instances.service';
import type { Page } from '../../common/http/page.dto';
import { UserResponse } from '../users/dto/user-responses.dto';
import { toUserResponse } from '../users/users.mapper';
import { UserDirectoryService } from '../users/user-directory.service';
import {
  ChangePasswordDto,
  RegisterDto,
  ResetPasswordDto,
  TokenRequestDto,
  UpdateAccountDto,
} from './dto/auth-requests.dto';
import { ImpersonationTokenResponse, MessageResponse } from './dto/auth-responses.dto';
import { LoginFailure } from './entities/login-failure.entity';
import { PasswordResetToken } from './entities/password-reset-token.entity';
import { IssuedTokens, SessionsService } from './sessions.service';
import { AccountsQueries } from './accounts.queries';

export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;
const RESET_TOKEN_MS = 60 * 60 * 1000;
export const FORGOT_PASSWORD_SENTENCE =
  'If an account exists for that email, a link to reset the password has been sent to it.';
const BAD_CREDENTIALS = 'Incorrect email or password';

@Injectable()
export class AuthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly users: UserDirectoryService,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly mailer: MailerService,
    private readonly audit: AuditService,
    private readonly apiKeys: ApiKeysService,
    private readonly instances: InstancesService,
    private readonly queries: AccountsQueries,
  ) {}

  async register(caller: Actor | undefined, dto: RegisterDto, client: ClientInfo): Promise<UserResponse> {
    const callerIsSuperadmin = !!caller?.isSuperadmin;
    const privileged = dto.is_superadmin === true || dto.is_active === false;
    const passwordHash = await this.hasher.hash(dto.password);
    const user = await this.tx.run(async (em) => {
      // Serialises registrations so that only one account can bootstrap as the first superadmin.
      await this.queries.lockRegistrations(em);
      const bootstrap = !(await this.users.anyUserExists(em));
      if (!bootstrap && !callerIsSuperadmin) {
        if (!this.config.registrationOpen) {
          throw new Forbidden(
            'Registration is closed: ask a superadmin to create your account.',
            'registration_closed',
          );
        }
        if (privileged) {
          throw new Forbidden(
            'Only a superadmin may register accounts that are superadmins or inactive.',
            'privileged_registration',
          );
        }
      }
      const created = await this.users.create(
        em,
        {
          email: dto.email,
          passwordHash,
          firstName: dto.first_name?.trim() ?? '',
          lastName: dto.last_name?.trim() ?? '',
          isActive: dto.is_active ?? true,
          isSuperadmin: dto.is_superadmin ?? false,
        },
        caller ?? null,
      );
      if (created.isSuperadmin || !created.isActive) {
        await this.audit.record(em, caller ?? null, {
          action: 'user.registered_privileged',
          resourceType: 'user',
          resourceId: created.id,
          ip: client.ip,
          details: { is_superadmin: created.isSuperadmin, is_active: created.isActive, bootstrap },
        });
      }
      return created;
    });
    return toUserResponse(user);
  }

  async login(form: TokenRequestDto, client: ClientInfo): Promise<IssuedTokens> {
    const email = form.username.trim().toLowerCase();
    await this.refuseWhileLockedOut(email);
    const user = await this.users.findByEmailForLogin(this.dataSource.manager, email);
    const valid = await this.hasher.verify(user?.passwordHash ?? null, form.password);
    if (!user || !valid) {
      await this.tx.run(async (em) => {
        await em.getRepository(LoginFailure).insert({ email, ip: client.ip });
        await this.audit.record(em, null, {
          action: 'auth.login_failed',
          resourceType: 'user',
          resourceId: user?.id ?? null,
          ip: client.ip,
          details: { email },
        });
      });
      throw new Unauthorized(BAD_CREDENTIALS, 'invalid_credentials');
    }
    if (!user.isActive) throw new Forbidden('This account is deactivated.', 'account_inactive');
    // Only after the password: an unknown instance is not told to someone who cannot sign in.
    const instance = await this.instances.resolveFor(
      { userId: user.id, isSuperadmin: user.isSuperadmin },
      form.instance,
    );
    return this.tx.run(async (em) => {
      await em.getRepository(LoginFailure).delete({ email });
      await this.users.markLoggedIn(em, user.id);
      const tokens = await this.sessions.start(em, user.id, client, instance.id);
      await this.audit.record(em, null, {
        action: 'auth.login',
        actorId: user.id,
        resourceType: 'user',
        resourceId: user.id,
        ip: client.ip,
        details: { instance_id: instance.id },
      });
      return tokens;
    });
  }

  async refresh(caller: Actor | undefined, token: string | undefined): Promise<IssuedTokens> {
    if (caller?.impersonatorId) {
      throw new Unauthorized('An impersonation token cannot be refreshed.', 'impersonation_refresh');
    }
    if (!token)
      throw new Unauthorized('No refresh token was sent (cookie or body).', 'refresh_token_missing');
    const outcome = await this.tx.run(async (em) => {
      const presented = await this.sessions.findRefreshToken(em, token);
      const session = presented?.session;
      if (!presented || !session) return { error: 'The refresh token is not valid.' } as const;
      if (presented.rotatedAt) {
        // Reuse of a rotated token means it leaked: end the whole session (committed before answering 401).
        await this.sessions.revoke(em, session.id, 'refresh_token_reuse');
        await this.audit.record(em, null, {
          action: 'auth.refresh_token_reused',
          resourceType: 'session',
          resourceId: session.id,
          details: { user_id: session.userId },
        });
        return { error: 'The refresh token was already used; the session has been ended.' } as const;
      }
      const now = Date.now();
      if (session.revokedAt || session.expiresAt.getTime() <= now || presented.expiresAt.getTime() <= now) {
        return { error: 'The session has ended: sign in again.' } as const;
      }
      const user = await this.users.findById(em, session.userId);
      if (!user?.isActive) return { error: 'The account is deactivated.' } as const;
      if (
        !(await this.instances.canReach(
          { userId: user.id, isSuperadmin: user.isSuperadmin },
          session.instanceId,
          em,
        ))
      ) {
        return { error: 'You are no longer a member of the instance of this session.' } as const;
      }
      return { tokens: await this.sessions.rotate(em, presented, session) } as const;
    });
    if ('error' in outcome) throw new Unauthorized(outcome.error, 'refresh_token_invalid');
    return outcome.tokens;
  }

  async logout(actor: Actor): Promise<void> {
    if (!actor.sessionId) return;
    const sessionId = actor.sessionId;
    await this.tx.run((em) => this.sessions.revoke(em, sessionId, 'logout'));
  }

  updateAccount(actor: Actor, dto: UpdateAccountDto): Promise<UserResponse> {
    return this.users.updateAccount(actor, {
      fullName: dto.full_name,
      avatarColor: dto.avatar_color,
      avatarStyle: dto.avatar_type,
      avatarUrl: dto.avatar_url,
    });
  }

  async me(actor: Actor, prefetched?: OwnUserRow): Promise<UserResponse> {
    const user = await this.users.getOwnResponse(actor.userId, prefetched);
    if (!user) throw new NotFound('user', actor.userId);
    return user;
  }

  async deactivateSelf(actor: Actor, client: ClientInfo): Promise<void> {
    await this.tx.run(async (em) => {
      await this.users.deactivate(em, actor.userId);
      await this.sessions.revokeAllOf(em, actor.userId, 'account_deactivated');
      await this.apiKeys.revokeAllOf(em, actor.userId, 'account_deactivated');
      await this.audit.record(em, actor, {
        action: 'user.deactivated',
        resourceType: 'user',
        resourceId: actor.userId,
        ip: client.ip,
      });
    });
  }

  async forgotPassword(email: string): Promise<MessageResponse> {
    const user = await this.users.findByEmailForLogin(this.dataSource.manager, email);
    if (user?.isActive) {
      const token = randomToken();
      await this.tx.run(async (em) => {
        await em
          .getRepository(PasswordResetToken)
          .createQueryBuilder()
          .update()
          .set({ usedAt: () => 'now()' })
          .where('user_id = :userId AND used_at IS NULL', { userId: user.id })
          .execute();
        await em.getRepository(PasswordResetToken).insert({
          tokenHash: tokenHash(token),
          userId: user.id,
          expiresAt: new Date(Date.now() + RESET_TOKEN_MS),
          usedAt: null,
        });
        const link = `${this.config.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;
        await this.mailer.enqueue(em, {
          to: user.email,
          subject: 'Reset your Verity password',
          ...renderMail(
            [
              `Someone asked to reset the password of the Verity account ${user.email}.`,
              'The link below works once, for one hour. If you did not ask for this, ignore this email.',
              `Reset token: ${token}`,
            ],
            { label: 'Choose a new password', url: link },
          ),
        });
      });
    }
    return { message: FORGOT_PASSWORD_SENTENCE };
  }

  async resetPassword(dto: ResetPasswordDto): Promise<MessageResponse> {
    const passwordHash = await this.hasher.hash(dto.new_password);
    await this.tx.run(async (em) => {
      const reset = await em.getRepository(PasswordResetToken).findOne({
        where: { tokenHash: tokenHash(dto.token) },
        lock: { mode: 'pessimistic_write' },
      });
      if (!reset || reset.usedAt || reset.expiresAt.getTime() <= Date.now()) {
        throw new BadRequest('The reset token is invalid or has expired.', 'reset_token_invalid');
      }
      await em.getRepository(PasswordResetToken).update(reset.tokenHash, { usedAt: new Date() });
      await this.users.setPasswordHash(em, reset.userId, passwordHash);
      await this.sessions.revokeAllOf(em, reset.userId, 'password_reset');
      await this.audit.record(em, null, {
        action: 'auth.password_reset',
        resourceType: 'user',
        resourceId: reset.userId,
      });
    });
    return { message: 'Your password has been reset. Sign in with the new password.' };
  }

  async changePassword(actor: Actor, dto: ChangePasswordDto, client: ClientInfo): Promise<MessageResponse> {
    // Hashing happens outside the transaction: on the embedded database it would hold the only connection.
    const currentHash = await this.users.findPasswordHash(this.dataSource.manager, actor.userId);
    if (!(await this.hasher.verify(currentHash, dto.current_password))) {
      throw new BadRequest('The current password is not correct.', 'current_password_wrong');
    }
    const passwordHash = await this.hasher.hash(dto.new_password);
    await this.tx.run(async (em) => {
      await this.users.setPasswordHash(em, actor.userId, passwordHash);
      await this.sessions.revokeAllOf(em, actor.userId, 'password_changed', actor.sessionId);
      await this.audit.record(em, actor, {
        action: 'auth.password_changed',
        resourceType: 'user',
        resourceId: actor.userId,
        ip: client.ip,
      });
    });
    return { message: 'Your password has been changed; your other sessions were signed out.' };
  }

  async impersonate(actor: Actor, userId: string, client: ClientInfo): Promise<ImpersonationTokenResponse> {
    return this.tx.run(async (em) => {
      const target = await this.users.findById(em, userId);
      if (!target) throw new NotFound('user', userId);
      if (target.isSuperadmin)
        throw new Forbidden('A superadmin cannot be impersonated.', 'impersonation_forbidden');
      if (!target.isActive)
        throw new Forbidden('An inactive user cannot be impersonated.', 'impersonation_forbidden');
      // On the superadmin's current instance when the user reaches it, else on `default`.
      const instanceId = (await this.instances.canReach(
        { userId: target.id, isSuperadmin: false },
        actor.instanceId,
        em,
      ))
        ? actor.instanceId
        : DEFAULT_INSTANCE_ID;
      const tokens = await this.sessions.startImpersonation(em, target.id, actor.userId, client, instanceId);
      await this.audit.record(em, actor, {
        action: 'auth.impersonation_started',
        resourceType: 'user',
        resourceId: target.id,
        ip: client.ip,
        details: { impersonator_id: actor.userId, target_email: target.email },
      });
      return tokens;
    });
  }

  /** The instances the caller reaches (superadmins: all of them). */
  listInstances(actor: Actor, skip: number, limit: number): Promise<Page<AvailableInstanceResponse>> {
    return this.instances.listFor(actor, actor.instanceId, skip, limit);
  }

  /**
   * Cross-instance single sign-on: a new session on another instance for the
   * same user, without the password. The current session stays as it is.
   */
  async switchInstance(actor: Actor, dto: SwitchInstanceDto, client: ClientInfo): Promise<IssuedTokens> {
    if (!actor.sessionId) {
      throw new Forbidden('An API key belongs to one instance and cannot switch.', 'api_key_instance_fixed');
    }
    const instance = await this.instances.resolveFor(actor, dto.instance);
    return this.tx.run(async (em) => {
      const tokens = await this.sessions.start(em, actor.userId, client, instance.id);
      await this.audit.record(em, actor, {
        action: 'auth.instance_switched',
        resourceType: 'instance',
        resourceId: instance.id,
        ip: client.ip,
        details: { from_instance_id: actor.instanceId, to_instance_id: instance.id },
      });
      return tokens;
    });
  }

  private async refuseWhileLockedOut(email: string): Promise<void> {
    // Outside any transaction: read on the DataSource's manager.
    const rows = await this.queries.recentLoginFailures(
      this.dataSource.manager,
      email,
      LOCKOUT_WINDOW_MS / 1000,
      LOCKOUT_FAILURES,
    );
    if (rows.length < LOCKOUT_FAILURES) return;
    const oldest = rows[rows.length - 1].failed_at.getTime();
    const retryAfter = Math.ceil((oldest + LOCKOUT_WINDOW_MS - Date.now()) / 1000);
    throw new TooManyRequests(
      retryAfter,
      `Too many failed sign-ins for this email: try again in ${Math.max(1, retryAfter)} seconds.`,
      'login_locked',
    );
  }
}
