import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import {
  MembershipDirectory,
  MembershipSummary,
  SpaceRoleName,
} from '../../common/permissions/space-access.port';
import { SpaceMembership } from './entities/space-membership.entity';

/** Memberships as the users module sees them (it cannot import this module). */
@Injectable()
export class MembershipDirectoryService extends MembershipDirectory {
  constructor(@InjectRepository(SpaceMembership) private readonly memberships: Repository<SpaceMembership>) {
    super();
  }

  async spacesOf(userId: string): Promise<MembershipSummary[]> {
    const rows = await this.memberships
      .createQueryBuilder('m')
      .innerJoin('m.space', 's')
      .select(['s.id AS id', 's.name AS name', 's.slug AS slug', 'm.role AS role'])
      .where('m.userId = :userId', { userId })
      .orderBy('s.name')
      .addOrderBy('s.id')
      .getRawMany<MembershipSummary>();
    return rows;
  }

  async roleOf(userId: string, spaceId: string): Promise<SpaceRoleName | null> {
    const membership = await this.memberships.findOneBy({ userId, spaceId });
    return membership?.role ?? null;
  }

  async spacesCount(userIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (!userIds.length) return counts;
    const rows = await this.memberships
      .createQueryBuilder('m')
      .select('m.userId', 'user_id')
      .addSelect('COUNT(*)::int', 'count')
      .where('m.userId = ANY(:userIds)', { userIds })
      .groupBy('m.userId')
      .getRawMany<{ user_id: string; count: number }>();
    for (const row of rows) counts.set(row.user_id, row.count);
    return counts;
  }

  memberOfSql(userColumn: string, params: { spaceParam?: string; roleParam?: string }): string {
    const space = params.spaceParam ? ` AND m_of.space_id = :${params.spaceParam}` : '';
    const role = params.roleParam ? ` AND m_of.role = :${params.roleParam}` : '';
    return `EXISTS (SELECT 1 FROM space_memberships m_of WHERE m_of.user_id = ${userColumn}${space}${role})`;
  }

  sharesSpaceWithSql(userColumn: string, viewerParam: string): string {
    return `EXISTS (SELECT 1 FROM space_memberships m_a JOIN space_memberships m_b ON m_b.space_id = m_a.space_id WHERE m_a.user_id = ${userColumn} AND m_b.user_id = :${viewerParam})`;
  }
}
