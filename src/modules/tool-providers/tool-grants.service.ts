import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { ToolGrant } from './entities/tool-grant.entity';

/** What an external-research grant is scoped to (web-search capability rule 4). */
export interface GrantScope {
  userId: string;
  spaceId: string;
  definitionId: string | null;
  rootTaskId: string;
  bindingId: string;
  providerId: string;
}

/**
 * External-research grants: created by the authoring flow when a consent is
 * approved, revoked here when the binding or the provider they name goes away.
 */
@Injectable()
export class ToolGrantsService {
  constructor(@InjectRepository(ToolGrant) private readonly grants: Repository<ToolGrant>) {}

  async grant(scope: GrantScope, consentId: string, expiresAt: Date, manager?: EntityManager): Promise<void> {
    await (manager ?? this.grants.manager)
      .getRepository(ToolGrant)
      .insert({ ...scope, consentId, expiresAt });
  }

  /** The newest grant for exactly this scope that is neither revoked nor expired; null when none. */
  async findActive(scope: GrantScope): Promise<{ id: string; consentId: string; expiresAt: Date } | null> {
    const grant = await this.grants
      .createQueryBuilder('g')
      .where('g.userId = :userId AND g.rootTaskId = :rootTaskId AND g.bindingId = :bindingId', scope)
      .andWhere('g.spaceId = :spaceId AND g.providerId = :providerId', scope)
      .andWhere('g.definitionId IS NOT DISTINCT FROM CAST(:definitionId AS uuid)', {
        definitionId: scope.definitionId,
      })
      .andWhere('g.revokedAt IS NULL AND g.expiresAt > now()')
      .orderBy('g.expiresAt', 'DESC')
      .getOne();
    return grant ? { id: grant.id, consentId: grant.consentId, expiresAt: grant.expiresAt } : null;
  }

  /** Revokes every active grant of a provider (it is being deleted); answers how many. */
  async revokeForProvider(em: EntityManager, providerId: string): Promise<number> {
    const result = await em
      .getRepository(ToolGrant)
      .update({ providerId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return result.affected ?? 0;
  }

  /** Revokes every active grant of a capability binding (deleted or replaced); answers how many. */
  async revokeForBinding(em: EntityManager, bindingId: string): Promise<number> {
    const result = await em
      .getRepository(ToolGrant)
      .update({ bindingId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return result.affected ?? 0;
  }
}
