import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { ToolGrant } from './entities/tool-grant.entity';
import { ToolProvidersQueries } from './tool-providers.queries';

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
 * External-research grants, owned here (tool_grants): what lets a user's
 * searches contact a binding's provider. Tool-providers owns them because
 * its rules end them: they are revoked in the same transaction that
 * deletes or replaces the binding or deletes the provider they name. The
 * authoring module only creates one through `grant` when its user approves
 * a consent, and reads the active one with `activeGrantSql` of
 * tool-providers.contract.ts; the task and consent ids are opaque here.
 */
@Injectable()
export class ToolGrantsService {
  constructor(
    @InjectRepository(ToolGrant) private readonly grants: Repository<ToolGrant>,
    private readonly prepared: PreparedQueries,
    private readonly queries: ToolProvidersQueries,
  ) {}

  async grant(em: EntityManager, scope: GrantScope, consentId: string, expiresAt: Date): Promise<void> {
    await em.getRepository(ToolGrant).insert({ ...scope, consentId, expiresAt });
  }

  /** The newest grant for exactly this scope that is neither revoked nor expired; null when none. */
  async findActive(scope: GrantScope): Promise<{ id: string; consentId: string; expiresAt: Date } | null> {
    const [grant] = await this.queries.activeGrant(this.prepared, scope);
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
