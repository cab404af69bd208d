import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess, SpaceRoleName } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction-runner';
import { AuditService } from '../../platform/audit/audit.service';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { UsersService } from '../users/users.service';
import { AddMemberDto, ListMembersQuery, UpdateMemberDto } from './dto/space.requests';
import { MemberResponse } from './dto/space.responses';
import { SpaceMembership } from './entities/space-membership.entity';
import { Space } from './entities/space.entity';
import { toMemberResponse } from './spaces.mapper';

@Injectable()
export class MembersService {
  constructor(
    @InjectRepository(SpaceMembership) private readonly memberships: Repository<SpaceMembership>,
    private readonly users: UsersService,
    private readonly tx: TransactionRunner,
    private readonly outbox: OutboxService,
    private readonly audit: AuditService,
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
    const users = new Map(
      (await this.users.findByIds(memberships.map((m) => m.userId))).map((u) => [u.id, u]),
    );
    return {
      items: memberships
        .filter((m) => users.has(m.userId))
        .map((m) => toMemberResponse(m, users.get(m.userId)!)),
      total,
    };
  }

  async add(actor: Actor, access: SpaceAccess, dto: AddMemberDto): Promise<MemberResponse> {
    return this.tx.run(async (em) => {
      await this.lockSpace(em, access.space.id);
      const user = await this.users.findById(dto.user_id, em);
      if (!user || !user.isActive) {
        throw ValidationFailed.field('user_id', 'user_id does not name an active user.');
      }
      const repo = em.getRepository(SpaceMembership);
      if (await repo.existsBy({ spaceId: access.space.id, userId: user.id })) {
        throw new Conflict('The user is already a member of this space.', 'already_member');
      }
      const membership = await repo.save(
        repo.create({ spaceId: access.space.id, userId: user.id, role: dto.role as SpaceRoleName }),
      );
      await this.record(em, actor, 'space.member_added', access.space.id, user.id, { role: membership.role });
      return toMemberResponse(membership, user);
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
      const membership = await this.requireMember(em, access, userId);
      const role = dto.role as SpaceRoleName;
      const previous = membership.role;
      if (previous !== role) {
        if (previous === 'admin') await this.keepOneAdmin(em, access.space.id, 'demoted');
        membership.role = role;
        await em.getRepository(SpaceMembership).update({ spaceId: access.space.id, userId }, { role });
        await this.record(em, actor, 'space.member_role_changed', access.space.id, userId, {
          role,
          previous_role: previous,
        });
      }
      const user = await this.users.findById(userId, em);
      return toMemberResponse(membership, user!);
    });
  }

  async remove(actor: Actor, access: SpaceAccess, userId: string): Promise<void> {
    await this.tx.run(async (em) => {
      await this.lockSpace(em, access.space.id);
      const membership = await this.requireMember(em, access, userId);
      if (membership.role === 'admin') await this.keepOneAdmin(em, access.space.id, 'removed');
      await em.getRepository(SpaceMembership).delete({ spaceId: access.space.id, userId });
      await this.record(em, actor, 'space.member_removed', access.space.id, userId, {
        role: membership.role,
      });
    });
  }

  // Used by provisioning (SCIM groups) and the permissions import, inside their transactions.

  /** The members of a space with their roles. */
  async membersOf(em: EntityManager, spaceId: string): Promise<{ userId: string; role: SpaceRoleName }[]> {
    return em
      .getRepository(SpaceMembership)
      .find({ where: { spaceId }, select: { userId: true, role: true }, order: { userId: 'ASC' } });
  }

  /**
   * Makes the user a member with the role (adds, or changes the role), keeping
   * a space's last admin (409). Answers what changed.
   */
  async setRole(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    userId: string,
    role: SpaceRoleName,
  ): Promise<'added' | 'updated' | 'unchanged'> {
    await this.lockSpace(em, spaceId);
    const repo = em.getRepository(SpaceMembership);
    const current = await repo.findOneBy({ spaceId, userId });
    if (current?.role === role) return 'unchanged';
    if (!current) {
      await repo.insert({ spaceId, userId, role });
      await this.record(em, actor, 'space.member_added', spaceId, userId, { role });
      return 'added';
    }
    if (current.role === 'admin') await this.keepOneAdmin(em, spaceId, 'demoted');
    await repo.update({ spaceId, userId }, { role });
    await this.record(em, actor, 'space.member_role_changed', spaceId, userId, {
      role,
      previous_role: current.role,
    });
    return 'updated';
  }

  /** Removes a membership if there is one, keeping a space's last admin (409). */
  async removeMembership(
    em: EntityManager,
    actor: Actor | null,
    spaceId: string,
    userId: string,
  ): Promise<boolean> {
    await this.lockSpace(em, spaceId);
    const membership = await em.getRepository(SpaceMembership).findOneBy({ spaceId, userId });
    if (!membership) return false;
    if (membership.role === 'admin') await this.keepOneAdmin(em, spaceId, 'removed');
    await em.getRepository(SpaceMembership).delete({ spaceId, userId });
    await this.record(em, actor, 'space.member_removed', spaceId, userId, { role: membership.role });
    return true;
  }

  // Membership changes of one space are serialised on the space row, so the last-admin rule holds under races.
  /** A membership change as an outbox event and an audit entry of the same name. */
  private async record(
    em: EntityManager,
    actor: Actor | null,
    type: 'space.member_added' | 'space.member_role_changed' | 'space.member_removed',
    spaceId: string,
    userId: string,
    details: { role: SpaceRoleName; previous_role?: SpaceRoleName },
  ): Promise<void> {
    await this.outbox.append(em, {
      type,
      spaceId,
      actorId: actor?.userId ?? null,
      data: { space_id: spaceId, user_id: userId, ...details },
    });
    await this.audit.record(em, actor, {
      action: type,
      resourceType: 'space_membership',
      resourceId: userId,
      spaceId,
      details,
    });
  }

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

  private async keepOneAdmin(em: EntityManager, spaceId: string, verb: string): Promise<void> {
    const admins = await em.getRepository(SpaceMembership).countBy({ spaceId, role: 'admin' });
    if (admins <= 1) {
      throw new Conflict(
        `The last admin of a space cannot be ${verb}: make another member admin first.`,
        'last_space_admin',
      );
    }
  }
}
