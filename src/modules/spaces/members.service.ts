import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess, SpaceRoleName } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { AddMemberDto, ListMembersQuery, UpdateMemberDto } from './dto/space-requests.dto';
import { MemberResponse } from './dto/space-responses.dto';
import { SpaceMembership } from './entities/space-membership.entity';
import { Space } from './entities/space.entity';
import { toMemberResponse } from './spaces.mapper';
import {
  adminsAfter,
  DirectGrantChange,
  highestRole,
  MembershipRolesQueries,
  RoleChange,
} from './membership-roles.queries';

export type { DirectGrantChange };

type MembershipEventType = 'space.member_added' | 'space.member_role_changed' | 'space.member_removed';

@Injectable()
export class MembersService {
  constructor(
    @InjectRepository(SpaceMembership) private readonly memberships: Repository<SpaceMembership>,
    private readonly users: UserDirectoryService,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
    private readonly roles: MembershipRolesQueries,
  ) {}

  async list(_actor: Actor, access: SpaceAccess, query: ListMembersQuery): Promise<Page<MemberResponse>> {
    const [memberships, total] = await this.memberships
      .createQueryBuilder('m')
      .where('m.spaceId = :spaceId', { spaceId: access.space.id })
      .orderBy('m.createdAt', 'ASC')
      .addOrderBy('m.userId', 'ASC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    const ids = memberships.map((m) => m.userId);
    const users = new Map((await this.users.findByIds(this.memberships.manager, ids)).map((u) => [u.id, u]));
    const grants = await this.roles.groupGrantsOf(this.memberships.manager, access.space.id, ids);
    return {
      items: memberships
        .filter((m) => users.has(m.userId))
        .map((m) =>
          toMemberResponse(
            m,
            users.get(m.userId)!,
            grants.filter((g) => g.user_id === m.userId),
          ),
        ),
      total,
    };
  }

  async add(actor: Actor, access: SpaceAccess, dto: AddMemberDto): Promise<MemberResponse> {
    return this.tx.run(async (em) => {
      await this.lockSpace(em, access.space.id);
      const user = await this.users.findById(em, dto.user_id);
      if (!user || !user.isActive) {
        throw ValidationFailed.field('user_id', 'user_id does not name an active user.');
      }
      const current = await em
        .getRepository(SpaceMembership)
        .findOneBy({ spaceId: access.space.id, userId: user.id });
      if (current?.directRole) {
        throw new Conflict('The user is already a member of this space.', 'already_member');
      }
      // A member through SCIM groups only gets a direct grant beside them.
      await this.applyDirect(em, actor, access.space.id, user.id, dto.role as SpaceRoleName);
      return this.memberResponse(em, access.space.id, user.id);
    });
  }

  async changeRole(
    actor: Actor,
    access: SpaceAccess,
    userId: string,
    dto: UpdateMemberDto,
  ): Promise<MemberResponse> {
    return this.tx.run(async (em) => {
      await this.lockSpace(em, access.space.id);
      await this.requireMember(em, access, userId);
      await this.applyDirect(em, actor, access.space.id, userId, dto.role as SpaceRoleName);
      return this.memberResponse(em, access.space.id, userId);
    });
  }

  async remove(actor: Actor, access: SpaceAccess, userId: string): Promise<void> {
    await this.tx.run(async (em) => {
      await this.lockSpace(em, access.space.id);
      const membership = await this.requireMember(em, access, userId);
      if (!membership.directRole) {
        throw new Conflict(
          'The user is a member only through SCIM groups: remove them from the group in the identity provider, or remove the group mapping.',
          'granted_by_group',
        );
      }
      await this.applyDirect(em, actor, access.space.id, userId, null);
    });
  }

  // Used by provisioning (SCIM groups) and the permissions import, inside their transactions.

  /**
   * The grants behind the spaces' memberships: direct grants (members only
   * through groups are left out) and the roles mapped SCIM groups grant.
   */
  async grantsIn(
    em: EntityManager,
    spaceIds: string[],
  ): Promise<{
    direct: { spaceId: string; userId: string; role: SpaceRoleName }[];
    groups: { spaceId: string; userId: string; role: SpaceRoleName; groupId: string; groupName: string }[];
  }> {
    const direct = await this.roles.directGrantsIn(em, spaceIds);
    const groups = await this.roles.groupGrantsIn(em, spaceIds);
    return {
      direct: direct.map((g) => ({ spaceId: g.space_id, userId: g.user_id, role: g.role })),
      groups: groups.map((g) => ({
        spaceId: g.space_id,
        userId: g.user_id,
        role: g.role,
        groupId: g.group_id,
        groupName: g.group_name,
      })),
    };
  }

  /** Locks the spaces' rows (in one order, so two callers cannot deadlock) before their memberships are read. */
  async lockSpaces(em: EntityManager, spaceIds: string[]): Promise<void> {
    for (const id of [...new Set(spaceIds)].sort()) await this.lockSpace(em, id);
  }

  /**
   * Brings the effective roles of the space's members (of `userIds` only,
   * when given) in line with their direct and group grants: one statement
   * for the space, then one for the events and one for the audit entries.
   * `direct` sets or clears direct grants in that statement first (the
   * permissions import). A change that would leave the space without an
   * admin answers 409 (the caller's transaction rolls it back).
   */
  async recomputeRoles(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    options: { userIds?: string[]; direct?: DirectGrantChange[]; details?: Record<string, unknown> } = {},
  ): Promise<RoleChange[]> {
    if (options.userIds && !options.userIds.length && !options.direct?.length) return [];
    await this.lockSpace(em, spaceId);
    const changes = await this.roles.recomputeSpaceRoles(em, spaceId, options.userIds, options.direct);
    const admins = adminsAfter(changes);
    if (admins === 0 && changes[0].admins_before > 0) throw this.lastAdmin();
    await this.recordChanges(em, actor, spaceId, changes, options.details);
    return changes;
  }

  /**
   * Sets (or, with null, revokes) the user's direct grant and writes the
   * effective role that follows with the SCIM group grants (the space row is
   * locked by the caller). Answers the change of the effective role, if any.
   */
  private async applyDirect(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    userId: string,
    direct: SpaceRoleName | null,
  ): Promise<RoleChange | null> {
    const repo = em.getRepository(SpaceMembership);
    const current = await repo.findOneBy({ spaceId, userId });
    const fromGroups = (await this.roles.groupGrantsOf(em, spaceId, [userId])).map((g) => g.role);
    const role = highestRole([...fromGroups, ...(direct ? [direct] : [])]);
    const previous = current?.role ?? null;
    if (!current && role) await repo.insert({ spaceId, userId, role, directRole: direct });
    else if (current && role) await repo.update({ spaceId, userId }, { role, directRole: direct });
    else if (current) await repo.delete({ spaceId, userId });
    if (role === previous) return null;
    if (previous === 'admin') {
      const admins = await repo.countBy({ spaceId, role: 'admin' });
      if (admins === 0) throw this.lastAdmin();
    }
    const change: RoleChange = { user_id: userId, role, previous_role: previous, admins_before: 0 };
    await this.recordChanges(em, actor, spaceId, [change]);
    return change;
  }

  private async memberResponse(em: EntityManager, spaceId: string, userId: string): Promise<MemberResponse> {
    const membership = await em.getRepository(SpaceMembership).findOneByOrFail({ spaceId, userId });
    const user = await this.users.findById(em, userId);
    return toMemberResponse(membership, user!, await this.roles.groupGrantsOf(em, spaceId, [userId]));
  }

  /** Membership changes as outbox events and audit entries of the same name, in one statement each. */
  private async recordChanges(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    changes: RoleChange[],
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const typed = changes.map((change) => {
      const type: MembershipEventType = !change.previous_role
        ? 'space.member_added'
        : !change.role
          ? 'space.member_removed'
          : 'space.member_role_changed';
      const details: { role: SpaceRoleName; previous_role?: SpaceRoleName } =
        change.role && change.previous_role
          ? { role: change.role, previous_role: change.previous_role }
          : { role: (change.role ?? change.previous_role)! };
      return { type, userId: change.user_id, details };
    });
    await this.outbox.appendMany(
      em,
      typed.map(({ type, userId, details }) => ({
        type,
        spaceId,
        actorId: actor?.userId ?? null,
        data: { space_id: spaceId, user_id: userId, ...details },
      })),
    );
    await this.audit.recordMany(
      em,
      actor,
      typed.map(({ type, userId, details }) => ({
        action: type,
        resourceType: 'space_membership',
        resourceId: userId,
        spaceId,
        details: { ...details, ...extra },
      })),
    );
  }

  private lastAdmin(): Conflict {
    return new Conflict(
      'The last admin of a space cannot be removed or demoted: make another member admin first.',
      'last_space_admin',
    );
  }

  // Membership changes of one space are serialised on the space row, so the last-admin rule holds under races.
  private async lockSpace(em: EntityManager, spaceId: string): Promise<void> {
    await em
      .getRepository(Space)
      .createQueryBuilder('s')
      .select('s.id')
      .where('s.id = :id', { id: spaceId })
      .setLock('pessimistic_write')
      .getOne();
  }

  private async requireMember(
    em: EntityManager,
    access: SpaceAccess,
    userId: string,
  ): Promise<SpaceMembership> {
    const membership = await em
      .getRepository(SpaceMembership)
      .findOneBy({ spaceId: access.space.id, userId });
    if (!membership) throw new NotFound('member', userId);
    return membership;
  }
}
