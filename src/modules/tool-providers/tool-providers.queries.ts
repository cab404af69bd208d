import { Injectable } from '@nestjs/common';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import { activeGrantSql, BoundWebSearchRow, boundWebSearchSql } from './tool-providers.contract';

const FIND_ACTIVE_SQL = activeGrantSql({
  userId: '$1::uuid',
  spaceId: '$2::uuid',
  definitionId: '$3::uuid',
  rootTaskId: '$4::uuid',
  bindingId: '$5::uuid',
  providerId: '$6::uuid',
});

const FIND_BOUND_SQL = boundWebSearchSql('$1::uuid');

/**
 * The tool-provider reads on the hot path of a web search, in raw SQL rather
 * than the repository API: each is one fixed statement run as a named
 * prepared statement on the pool (outside any transaction). Both are built
 * from the fragments of tool-providers.contract.ts, which the authoring
 * module's search statement embeds too, so each rule is written once.
 * - the active grant: tool_grants_lookup_idx (user_id, root_task_id,
 *   binding_id; unrevoked grants only);
 * - the space's web_search binding: space_capability_bindings_space_capability_uq
 *   (space_id, capability_id), then the primary keys of tool_provider_tools,
 *   tool_providers and credentials, and space_tool_enablements' primary
 *   key (space_id, provider_id).
 */
@Injectable()
export class ToolProvidersQueries {
  /** The newest grant for exactly this scope that is neither revoked nor expired. */
  activeGrant(
    prepared: PreparedQueries,
    scope: {
      userId: string;
      spaceId: string;
      definitionId: string | null;
      rootTaskId: string;
      bindingId: string;
      providerId: string;
    },
  ): Promise<{ id: string; consent_id: string; expires_at: Date }[]> {
    return prepared.queryOutsideTransaction<{ id: string; consent_id: string; expires_at: Date }>(
      FIND_ACTIVE_SQL,
      [scope.userId, scope.spaceId, scope.definitionId, scope.rootTaskId, scope.bindingId, scope.providerId],
    );
  }

  /** The space's web_search binding with its tool, provider and credential (see boundWebSearchSql in the contract). */
  boundWebSearch(prepared: PreparedQueries, spaceId: string): Promise<BoundWebSearchRow[]> {
    return prepared.queryOutsideTransaction<BoundWebSearchRow>(FIND_BOUND_SQL, [spaceId]);
  }
}
