import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { GovernanceDirectory, GovernanceRoleSummary } from '../../common/permissions/space-access.port';
import { ProductRole } from './entities/product-role.entity';

/**
 * Product governance roles as the users module sees them (it cannot import
 * the catalog). The directory signature rule of ProductDirectoryService: the
 * executor `em` first and required, then the arguments.
 */
@Injectable()
export class GovernanceDirectoryService extends GovernanceDirectory {
  async rolesOf(
    em: EntityManager,
    userId: string,
    spaceIds: string[] | null,
  ): Promise<GovernanceRoleSummary[]> {
    if (spaceIds && !spaceIds.length) return [];
    const qb = em
      .getRepository(ProductRole)
      .createQueryBuilder('r')
      .innerJoin('r.product', 'p')
      .select([
        'r.productId AS "productId"',
        'p.name AS "productName"',
        'p.spaceId AS "spaceId"',
        'r.role AS role',
      ])
      .where('r.userId = :userId', { userId });
    if (spaceIds) qb.andWhere('p.spaceId = ANY(:spaceIds)', { spaceIds });
    return qb.orderBy('p.name').addOrderBy('r.role').getRawMany<GovernanceRoleSummary>();
  }
}
