import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, Repository } from 'typeorm';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import { Forbidden, NotFound } from '../../common/errors/domain-error';
import { GovernanceDirectory, MembershipDirectory } from '../../common/permissions/space-access.port';
import { likePattern } from '../../common/text/like-pattern';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { PreferencesResponse, UpdatePreferencesDto } from './dto/preferences.dto';
import {
  ProfileResponse,
  UserDetailResponse,
  UserListResponse,
  UserResponse,
  UserSearchItem,
} from './dto/user-responses.dto';
import {
  ListUsersQuery,
  normaliseAvatarStyle,
  SearchUsersQuery,
  UpdateMyProfileDto,
  UpdateUserDto,
} from './dto/user-requests.dto';
import { AiLiteracyStatus, User } from './entities/user.entity';
import { withDefaults } from './preferences';
import { toUserResponse, toUserSearchItem } from './users.mapper';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { UsersQueries } from './users.queries';
import { aiLiteracyChanges, assignChanged, keepOneSuperadmin, requireUser } from './user-rules';

const SEARCH_LIMIT = 10;

/** The /users and /preferences routes. What other modules call on users is UserDirectoryService's. */
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

  // /users endpoints.

  async getProfile(actor: Actor): Promise<ProfileResponse> {
    const user = await this.users.findOneBy({ id: actor.userId });
    if (!user) throw new NotFound('user', actor.userId);
    return { ...toUserResponse(user), spaces: await this.memberships.spacesOf(user.id) };
  }

  async updateMyProfile(actor: Actor, dto: UpdateMyProfileDto): Promise<ProfileResponse> {
    await this.tx.run(async (em) => {
      const user = await requireUser(em, actor.userId);
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
    const roles = await this.governance.rolesOf(
      this.users.manager,
      id,
      seesAll ? null : spaces.map((s) => s.id),
    );
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
      const user = await requireUser(em, id, true);
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
      if (wasActiveSuperadmin && !(user.isSuperadmin && user.isActive)) await keepOneSuperadmin(em, user);
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

  /** From the row the authentication query fetched along when there is one (a session's JWT), else one read. */
  async getPreferences(actor: Actor, prefetched?: OwnUserRow): Promise<PreferencesResponse> {
    const [row] = prefetched
      ? [prefetched as { preferences: User['preferences'] }]
      : await this.queries.preferences(this.prepared, actor.userId);
    if (!row) throw new NotFound('user', actor.userId);
    return withDefaults(row.preferences);
  }

  async updatePreferences(actor: Actor, dto: UpdatePreferencesDto): Promise<PreferencesResponse> {
    return this.tx.run(async (em) => {
      const user = await requireUser(em, actor.userId, true);
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
}
