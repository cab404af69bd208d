import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, Forbidden, NotFound } from '../../common/errors/domain-error';
import { GovernanceDirectory, MembershipDirectory } from '../../common/permissions/space-access.port';
import { likePattern } from '../../common/text/like-pattern';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction-runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { PreferencesResponse, UpdatePreferencesDto } from './dto/preferences.dto';
import {
  ProfileResponse,
  UserDetailResponse,
  UserListResponse,
  UserResponse,
  UserSearchItem,
} from './dto/user.response';
import {
  ListUsersQuery,
  normaliseAvatarStyle,
  SearchUsersQuery,
  UpdateMyProfileDto,
  UpdateUserDto,
} from './dto/user.requests';
import { AiLiteracyStatus, User } from './entities/user.entity';
import { withDefaults } from './preferences';
import { toUserResponse, toUserSearchItem } from './users.mapper';
import { PreparedQueries } from '../../database/prepared-queries';
import { UsersQueries } from './users.queries';

export interface NewUser {
  email: string;
  passwordHash: string | null;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isSuperadmin: boolean;
}

/** AI literacy fields as a system outside the API reports them; a field left undefined is kept. */
export interface AiLiteracyChange {
  status?: AiLiteracyStatus;
  program?: string | null;
  completionDate?: string | null;
  nextRenewal?: string | null;
}

/** A field to set: the entity property, its new value (undefined: keep), and its API name. */
type FieldChange = { [K in keyof User]: [K, User[K] | undefined, string] }[keyof User];

/** Assigns the given values that differ from the user's; answers the API names of the fields changed. */
function assignChanged(user: User, changes: FieldChange[]): string[] {
  const changed: string[] = [];
  for (const [key, value, field] of changes) {
    if (value === undefined || user[key] === value) continue;
    Object.assign(user, { [key]: value });
    changed.push(field);
  }
  return changed;
}

const aiLiteracyChanges = (change: AiLiteracyChange): FieldChange[] => [
  ['aiLiteracyStatus', change.status, 'ai_literacy_status'],
  ['aiLiteracyProgram', change.program, 'ai_literacy_program'],
  ['aiLiteracyCompletionDate', change.completionDate, 'ai_literacy_completion_date'],
  ['aiLiteracyNextRenewal', change.nextRenewal, 'ai_literacy_next_renewal'],
];

const SEARCH_LIMIT = 10;

@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    // Provided by the global spaces and catalog modules, which depend on this one.
    private readonly memberships: MembershipDirectory,
    private readonly governance: GovernanceDirectory,
    private readonly prepared: PreparedQueries,
    private readonly queries: UsersQueries,
  ) {}

  /** The signed-in user's own record, read on every `GET /auth/me`: a prepared statement, no entity mapping. */
  async getOwnResponse(userId: string): Promise<UserResponse | null> {
    const [row] = await this.queries.ownUser(this.prepared, userId);
    return row ? toUserResponse(Object.assign(new User(), row)) : null;
  }

  // Used by other modules (accounts, spaces, ...).

  findById(id: string, em: EntityManager): Promise<User | null> {
    return em.getRepository(User).findOneBy({ id });
  }

  findByIds(ids: string[], em: EntityManager): Promise<User[]> {
    if (!ids.length) return Promise.resolve([]);
    return em.getRepository(User).createQueryBuilder('u').where('u.id = ANY(:ids)', { ids }).getMany();
  }

  /** Users by email (lowercased), for mentions. */
  findByEmails(emails: string[], em: EntityManager): Promise<User[]> {
    if (!emails.length) return Promise.resolve([]);
    return em
      .getRepository(User)
      .createQueryBuilder('u')
      .where('u.email = ANY(:emails)', { emails: emails.map((e) => e.trim().toLowerCase()) })
      .getMany();
  }

  /** With the password hash, for sign-in. */
  findByEmailForLogin(email: string, em: EntityManager): Promise<User | null> {
    return em
      .getRepository(User)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('u.email = :email', { email: email.trim().toLowerCase() })
      .getOne();
  }

  async findPasswordHash(userId: string, em: EntityManager): Promise<string | null> {
    const row = await em
      .getRepository(User)
      .createQueryBuilder('u')
      .select('u.passwordHash', 'hash')
      .where('u.id = :userId', { userId })
      .getRawOne<{ hash: string | null }>();
    return row?.hash ?? null;
  }

  async setPasswordHash(userId: string, passwordHash: string, em: EntityManager): Promise<void> {
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

  async markLoggedIn(userId: string, em: EntityManager): Promise<void> {
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
    const user = await this.requireUser(em, userId, true);
    const repo = em.getRepository(User);
    const email = changes.email?.trim().toLowerCase();
    if (email !== undefined && email !== user.email && (await repo.existsBy({ email }))) {
      throw new Conflict(`An account with the email ${email} already exists.`, 'email_taken');
    }
    const deactivating = changes.isActive === false && user.isActive;
    if (deactivating && user.isSuperadmin) await this.keepOneSuperadmin(em, user);
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
    const user = await this.requireUser(em, userId, true);
    if (user.isSuperadmin === isSuperadmin) return;
    if (!isSuperadmin && user.isActive) await this.keepOneSuperadmin(em, user);
    await em.getRepository(User).update(userId, { isSuperadmin });
  }

  /** PATCH /auth/me: `full_name` splits at the first space. */
  async updateAccount(
    actor: Actor,
    changes: { fullName?: string; avatarColor?: string; avatarStyle?: string; avatarUrl?: string | null },
  ): Promise<UserResponse> {
    return this.tx.run(async (em) => {
      const user = await this.requireUser(em, actor.userId);
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

  // /users endpoints.

  async getProfile(actor: Actor): Promise<ProfileResponse> {
    const user = await this.users.findOneBy({ id: actor.userId });
    if (!user) throw new NotFound('user', actor.userId);
    return { ...toUserResponse(user), spaces: await this.memberships.spacesOf(user.id) };
  }

  async updateMyProfile(actor: Actor, dto: UpdateMyProfileDto): Promise<ProfileResponse> {
    await this.tx.run(async (em) => {
      const user = await this.requireUser(em, actor.userId);
      if (dto.first_name !== undefined) user.firstName = dto.first_name;
      if (dto.last_name !== undefined) user.lastName = dto.last_name.trim();
      if (dto.avatar_style !== undefined) user.avatarStyle = normaliseAvatarStyle(dto.avatar_style);
      if (dto.avatar_color !== undefined) user.avatarColor = dto.avatar_color;
      await em.save(user);
    });
    return this.getProfile(actor);
  }

  async list(actor: Actor, query: ListUsersQuery): Promise<UserListResponse> {
    // Superadmins see everyone; a space admin sees the members of a space they administer (space_id).
    if (!actor.isSuperadmin) {
      if (!query.space_id) {
        throw new Forbidden(
          'Listing users needs the superadmin role, or space_id of a space you administer.',
          'admin_required',
        );
      }
      if ((await this.memberships.roleOf(actor.userId, query.space_id)) !== 'admin') {
        throw new Forbidden('Only an admin of that space may list its members.', 'admin_required');
      }
    }
    const page = query.page ?? 1;
    const size = query.size ?? 50;
    const qb = this.users.createQueryBuilder('u');
    if (query.space_id || query.role) {
      const spaceParam = query.space_id ? 'spaceId' : undefined;
      const roleParam = query.role ? 'role' : undefined;
      qb.andWhere(this.memberships.memberOfSql('u.id', { spaceParam, roleParam }), {
        spaceId: query.space_id,
        role: query.role,
      });
    }
    if (query.search) {
      const pattern = likePattern(query.search);
      qb.andWhere(
        new Brackets((w) =>
          w
            .where('u.email ILIKE :pattern', { pattern })
            .orWhere(`(u.first_name || ' ' || u.last_name) ILIKE :pattern`, { pattern }),
        ),
      );
    }
    const [users, total] = await qb
      .orderBy('u.createdAt', 'ASC')
      .addOrderBy('u.id', 'ASC')
      .skip((page - 1) * size)
      .take(size)
      .getManyAndCount();
    const counts = await this.memberships.spacesCount(users.map((u) => u.id));
    return {
      items: users.map((u) => ({
        id: u.id,
        email: u.email,
        name: u.fullName,
        is_active: u.isActive,
        spaces_count: counts.get(u.id) ?? 0,
        last_login: u.lastLogin?.toISOString() ?? null,
      })),
      total,
      page,
      size,
    };
  }

  async search(actor: Actor, query: SearchUsersQuery): Promise<UserSearchItem[]> {
    const qb = this.users.createQueryBuilder('u').where('u.isActive = true');
    if (query.space_id) {
      if (!actor.isSuperadmin && !(await this.memberships.roleOf(actor.userId, query.space_id))) {
        throw new NotFound('space', query.space_id);
      }
      qb.andWhere(this.memberships.memberOfSql('u.id', { spaceParam: 'spaceId' }), {
        spaceId: query.space_id,
      });
    } else if (!actor.isSuperadmin) {
      qb.andWhere(
        new Brackets((w) =>
          w.where('u.id = :self').orWhere(this.memberships.sharesSpaceWithSql('u.id', 'self')),
        ),
        { self: actor.userId },
      );
    }
    if (query.q) {
      const pattern = likePattern(query.q);
      qb.andWhere(
        new Brackets((w) =>
          w
            .where('u.email ILIKE :pattern', { pattern })
            .orWhere(`(u.first_name || ' ' || u.last_name) ILIKE :pattern`, { pattern }),
        ),
      );
    }
    const users = await qb
      .orderBy('u.firstName')
      .addOrderBy('u.lastName')
      .addOrderBy('u.email')
      .take(SEARCH_LIMIT)
      .getMany();
    return users.map(toUserSearchItem);
  }

  async getDetail(actor: Actor, id: string): Promise<UserDetailResponse> {
    const seesAll = actor.isSuperadmin || actor.userId === id;
    let spaces = await this.memberships.spacesOf(id);
    if (!seesAll) {
      // Others see only the spaces they share; users who share none do not exist for them.
      const mine = new Set((await this.memberships.spacesOf(actor.userId)).map((s) => s.id));
      spaces = spaces.filter((s) => mine.has(s.id));
      if (!spaces.length) throw new NotFound('user', id);
    }
    const user = await this.users.findOneBy({ id });
    if (!user) throw new NotFound('user', id);
    const roles = await this.governance.rolesOf(id, seesAll ? null : spaces.map((s) => s.id));
    return {
      ...toUserResponse(user),
      spaces: spaces.map((s) => ({ id: s.id, name: s.name, role: s.role })),
      governance_roles: roles.map((r) => ({
        product_id: r.productId,
        product_name: r.productName,
        role: r.role,
      })),
    };
  }

  async update(actor: Actor, id: string, dto: UpdateUserDto): Promise<UserResponse> {
    return this.tx.run(async (em) => {
      const user = await this.requireUser(em, id, true);
      const wasActiveSuperadmin = user.isSuperadmin && user.isActive;
      const changed = assignChanged(user, [
        ['firstName', dto.first_name, 'first_name'],
        ['lastName', dto.last_name?.trim(), 'last_name'],
        ['isActive', dto.is_active, 'is_active'],
        ['isSuperadmin', dto.is_superadmin, 'is_superadmin'],
        ...aiLiteracyChanges({
          status: dto.ai_literacy_status as AiLiteracyStatus | undefined,
          program: dto.ai_literacy_program,
          completionDate: dto.ai_literacy_completion_date,
          nextRenewal: dto.ai_literacy_next_renewal,
        }),
      ]);
      if (wasActiveSuperadmin && !(user.isSuperadmin && user.isActive))
        await this.keepOneSuperadmin(em, user);
      await em.save(user);
      if (changed.length) {
        await this.outbox.append(em, {
          type: 'user.updated',
          data: { user_id: id, changed },
          actorId: actor.userId,
        });
      }
      if (changed.includes('is_superadmin') || changed.includes('is_active')) {
        await this.audit.record(em, actor, {
          action: changed.includes('is_superadmin') ? 'user.role_changed' : 'user.status_changed',
          resourceType: 'user',
          resourceId: id,
          details: { is_superadmin: user.isSuperadmin, is_active: user.isActive },
        });
      }
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

  async getPreferences(actor: Actor): Promise<PreferencesResponse> {
    const [row] = await this.queries.preferences(this.prepared, actor.userId);
    if (!row) throw new NotFound('user', actor.userId);
    return withDefaults(row.preferences);
  }

  async updatePreferences(actor: Actor, dto: UpdatePreferencesDto): Promise<PreferencesResponse> {
    return this.tx.run(async (em) => {
      const user = await this.requireUser(em, actor.userId, true);
      const stored = user.preferences ?? {};
      for (const section of ['notifications', 'ui'] as const) {
        const patch = dto[section];
        if (!patch) continue;
        const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
        stored[section] = { ...(stored[section] ?? {}), ...defined };
      }
      await em.getRepository(User).update(user.id, { preferences: jsonValue(stored) });
      return withDefaults(stored);
    });
  }

  private async requireUser(em: EntityManager, id: string, lock = false): Promise<User> {
    const user = await em.getRepository(User).findOne({
      where: { id },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
    if (!user) throw new NotFound('user', id);
    return user;
  }

  private async keepOneSuperadmin(em: EntityManager, user: User): Promise<void> {
    const others = await em
      .getRepository(User)
      .createQueryBuilder('u')
      .where('u.isSuperadmin = true AND u.isActive = true AND u.id <> :id', { id: user.id })
      .getCount();
    if (others === 0) {
      throw new Conflict('The last active superadmin cannot be demoted or deactivated.', 'last_superadmin');
    }
  }
}
