import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { PreparedQueries } from '../../database/prepared-queries';
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

/** SQL expressions (parameters, columns or scalar subqueries) standing for each part of a grant scope. */
export type GrantScopeSql = { [K in keyof GrantScope]: string };

/**
 * The newest grant for exactly this scope that is neither revoked nor
 * expired, as a subquery selecting `id, consent_id, expires_at` (no row when
 * none). One definition of the rule, for this service and for statements
 * that read the grant together with what it is checked against.
 */
export function activeGrantSql(scope: GrantScopeSql): string {
  return `SELECT g.id, g.consent_id, g.expires_at FROM tool_grants g
  WHERE g.user_id = ${scope.userId} AND g.root_task_id = ${scope.rootTaskId} AND g.binding_id = ${scope.bindingId}
    AND g.space_id = ${scope.spaceId} AND g.provider_id = ${scope.providerId}
    AND g.definition_id IS NOT DISTINCT FROM ${scope.definitionId}
    AND g.revoked_at IS NULL AND g.expires_at > now()
  ORDER BY g.expires_at DESC LIMIT 1`;
}

const FIND_ACTIVE_SQL = activeGrantSql({
  userId: '$1::uuid',
  spaceId: '$2::uuid',
  definitionId: '$3::uuid',
  rootTaskId: '$4::uuid',
  bindingId: '$5::uuid',
  providerId: '$6::uuid',
});

/**
 * External-research grants: created by the authoring flow when a consent is
 * approved, revoked here when the binding or the provider they name goes away.
 */
@Injectable()
export class ToolGrantsService {
  constructor(
    @InjectRepository(ToolGrant) private readonly grants: Repository<ToolGrant>,
    private readonly prepared: PreparedQueries,
  ) {}

  async grant(scope: GrantScope, consentId: string, expiresAt: Date, manager?: EntityManager): Promise<void> {
    await (manager ?? this.grants.manager)
      .getRepository(ToolGrant)
      .insert({ ...scope, consentId, expiresAt });
  }

  /** The newest grant for exactly this scope that is neither revoked nor expired; null when none. */
  async findActive(scope: GrantScope): Promise<{ id: string; consentId: string; expiresAt: Date } | null> {
    const [grant] = await this.prepared.queryOutsideTransaction<{
      id: string;
      consent_id: string;
      expires_at: Date;
    }>(FIND_ACTIVE_SQL, [
      scope.userId,
      scope.spaceId,
      scope.definitionId,
      scope.rootTaskId,
      scope.bindingId,
      scope.providerId,
    ]);
    return grant ? { id: grant.id, consentId: grant.consent_id, expiresAt: grant.expires_at } : null;
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
