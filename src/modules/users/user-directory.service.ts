import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import { Conflict } from '../../common/errors/domain-error';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { UserResponse } from './dto/user-responses.dto';
import { normaliseAvatarStyle } from './dto/user-requests.dto';
import { User } from './entities/user.entity';
import {
  AiLiteracyChange,
  aiLiteracyChanges,
  assignChanged,
  keepOneSuperadmin,
  NewUser,
  requireUser,
} from './user-rules';
import { toUserResponse } from './users.mapper';
import { UsersQueries } from './users.queries';

/**
 * What other modules (accounts, sso, scim, spaces, permissions, ...) call on
 * users. One signature rule: the executor `em: EntityManager` comes first and
 * is required, then the arguments. The two exceptions open or need no
 * transaction of their own: `getOwnResponse` (a prepared statement) and
 * `updateAccount` (its own transaction). The /users routes are UsersService's.
 */
@Injectable()
export class UserDirectoryService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly prepared: PreparedQueries,
    private readonly queries: UsersQueries,
  ) {}

  /**
   * The signed-in user's own record, read on every `GET /auth/me`: from the row the authentication query
   * fetched along when there is one, else a prepared statement; no entity mapping.
   */
  async getOwnResponse(userId: string, prefetched?: OwnUserRow): Promise<UserResponse | null> {
    const row = prefetched ?? (await this.queries.ownUser(this.prepared, userId))[0];
    return row ? toUserResponse(Object.assign(new User(), row)) : null;
  }

  findById(em: EntityManager, id: string): Promise<User | null> {
    return em.getRepository(User).findOneBy({ id });
  }

  findByIds(em: EntityManager, ids: string[]): Promise<User[]> {
    if (!ids.length) return Promise.resolve([]);
    return em.getRepository(User).createQueryBuilder('u').where('u.id = ANY(:ids)', { ids }).getMany();
  }

  /** Users by email (lowercased), for mentions. */
  findByEmails(em: EntityManager, emails: string[]): Promise<User[]> {
    if (!emails.length) return Promise.resolve([]);
    return em
      .getRepository(User)
      .createQueryBuilder('u')
      .where('u.email = ANY(:emails)', { emails: emails.map((e) => e.trim().toLowerCase()) })
      .getMany();
  }

  /** With the password hash, for sign-in. */
  findByEmailForLogin(em: EntityManager, email: string): Promise<User | null> {
    return em
      .getRepository(User)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('u.email = :email', { email: email.trim().toLowerCase() })
      .getOne();
  }

  async findPasswordHash(em: EntityManager, userId: string): Promise<string | null> {
    const row = await em
      .getRepository(User)
      .createQueryBuilder('u')
      .select('u.passwordHash', 'hash')
      .where('u.id = :userId', { userId })
      .getRawOne<{ hash: string | null }>();
    return row?.hash ?? null;
  }

  async setPasswordHash(em: EntityManager, userId: string, passwordHash: string): Promise<void> {
    await em.getRepository(User).update(userId, { passwordHash });
  }

  async anyUserExists(em: EntityManager): Promise<boolean> {
    return em.getRepository(User).exists();
  }

  async create(em: EntityManager, data: NewUser, actor: Actor | null): Promise<User> {
    const email = data.email.trim().toLowerCase();
    if (await em.getRepository(User).existsBy({ email })) {
      throw new Conflict(`An account with the email ${email} already exists.`, 'email_taken');
    }
    const user = await em.getRepository(User).save(em.getRepository(User).create({ ...data, email }));
    await this.outbox.append(em, {
      type: 'user.registered',
      data: { user_id: user.id, email },
      actorId: actor?.userId ?? user.id,
    });
    return user;
  }

  async markLoggedIn(em: EntityManager, userId: string): Promise<void> {
    await em.getRepository(User).update(userId, { lastLogin: new Date() });
  }

  async deactivate(em: EntityManager, userId: string): Promise<void> {
    await em.getRepository(User).update(userId, { isActive: false });
    await this.outbox.append(em, { type: 'user.deactivated', data: { user_id: userId }, actorId: userId });
  }

  /**
   * Identity fields set by provisioning (SCIM): the email stays unique and the
   * last active superadmin cannot be deactivated (both 409).
   */
  async updateIdentity(
    em: EntityManager,
    userId: string,
    changes: { email?: string; firstName?: string; lastName?: string; isActive?: boolean },
  ): Promise<User> {
    const user = await requireUser(em, userId, true);
    const repo = em.getRepository(User);
    const email = changes.email?.trim().toLowerCase();
    if (email !== undefined && email !== user.email && (await repo.existsBy({ email }))) {
      throw new Conflict(`An account with the email ${email} already exists.`, 'email_taken');
    }
    const deactivating = changes.isActive === false && user.isActive;
    if (deactivating && user.isSuperadmin) await keepOneSuperadmin(em, user);
    Object.assign(user, {
      email: email ?? user.email,
      firstName: changes.firstName ?? user.firstName,
      lastName: changes.lastName ?? user.lastName,
      isActive: changes.isActive ?? user.isActive,
    });
    await repo.update(userId, {
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      isActive: user.isActive,
    });
    if (deactivating) {
      await this.outbox.append(em, { type: 'user.deactivated', data: { user_id: userId }, actorId: null });
    }
    return (await repo.findOneBy({ id: userId }))!;
  }

  /** Emails of the superadmins, for the permissions export. */
  async superadminEmails(em: EntityManager): Promise<string[]> {
    const rows = await em
      .getRepository(User)
      .createQueryBuilder('u')
      .select('u.email', 'email')
      .where('u.isSuperadmin = true')
      .orderBy('u.email')
      .getRawMany<{ email: string }>();
    return rows.map((r) => r.email);
  }

  /** Grants or withdraws superadmin (permissions import); the last active superadmin stays (409). */
  async setSuperadmin(em: EntityManager, userId: string, isSuperadmin: boolean): Promise<void> {
    const user = await requireUser(em, userId, true);
    if (user.isSuperadmin === isSuperadmin) return;
    if (!isSuperadmin && user.isActive) await keepOneSuperadmin(em, user);
    await em.getRepository(User).update(userId, { isSuperadmin });
  }

  /** PATCH /auth/me: `full_name` splits at the first space. */
  async updateAccount(
    actor: Actor,
    changes: { fullName?: string; avatarColor?: string; avatarStyle?: string; avatarUrl?: string | null },
  ): Promise<UserResponse> {
    return this.tx.run(async (em) => {
      const user = await requireUser(em, actor.userId);
      if (changes.fullName !== undefined) {
        const name = changes.fullName.trim();
        const space = name.indexOf(' ');
        user.firstName = space === -1 ? name : name.slice(0, space);
        user.lastName = space === -1 ? '' : name.slice(space + 1).trim();
      }
      if (changes.avatarColor !== undefined) user.avatarColor = changes.avatarColor;
      if (changes.avatarStyle !== undefined) user.avatarStyle = normaliseAvatarStyle(changes.avatarStyle);
      if (changes.avatarUrl !== undefined) {
        user.avatarUrl = changes.avatarUrl;
        if (changes.avatarUrl && changes.avatarStyle === undefined) user.avatarStyle = 'upload';
      }
      await em.save(user);
      return toUserResponse(user);
    });
  }

  /**
   * Sets a user's AI literacy fields on behalf of a system (the learning-system
   * webhook), in the caller's transaction: emits `user.updated` when something
   * changed and writes an audit entry with `details`. Null when no user has that
   * id or email.
   */
  async applyAiLiteracy(
    em: EntityManager,
    ref: { userId?: string; email?: string },
    change: AiLiteracyChange,
    details: Record<string, unknown>,
  ): Promise<{ user: UserResponse; changed: string[] } | null> {
    const repo = em.getRepository(User);
    const where = ref.userId ? { id: ref.userId } : { email: (ref.email ?? '').trim().toLowerCase() };
    const user = await repo.findOne({ where, lock: { mode: 'pessimistic_write' } });
    if (!user) return null;
    const changed = assignChanged(user, aiLiteracyChanges(change));
    if (changed.length) {
      await repo.save(user);
      await this.outbox.append(em, { type: 'user.updated', data: { user_id: user.id, changed } });
    }
    await this.audit.record(em, null, {
      action: 'user.ai_literacy_updated',
      resourceType: 'user',
      resourceId: user.id,
      details: { ...details, changed },
    });
    return { user: toUserResponse(user), changed };
  }
}
