import { WEB_SEARCH } from './provider-config';

/*
 * The SQL other modules may embed from tool-providers: its declared
 * contract, and the only file of this module another module imports SQL
 * from (its exported services are the rest of its API, see README.md).
 * Fragments rather than query methods because authoring's search statement
 * reads the task, the binding and the grant and makes its reservation in
 * one round trip (authoring/research-evidence.queries.ts); each rule is
 * written once here, and tool-providers.queries.ts runs it on its own.
 * Indexes behind them are listed in ToolProvidersQueries.
 */

/**
 * The space tool availability rule over tool `t`, its provider `p` and the
 * space's enablement `e`: the provider is active and enabled for the space,
 * the tool is enabled, its risk level is `read`, and it is allowlisted when
 * an allowlist is set. In column names, so that raw statements use it as
 * query builders do.
 */
export const AVAILABLE =
  "(p.is_active AND e.enabled AND t.is_enabled AND t.risk_level = 'read' AND (e.allowed_tool_names IS NULL OR t.tool_name = ANY(e.allowed_tool_names)))";

/** SQL expressions (parameters, columns or scalar subqueries) standing for each part of a grant scope. */
export interface GrantScopeSql {
  userId: string;
  spaceId: string;
  definitionId: string;
  rootTaskId: string;
  bindingId: string;
  providerId: string;
}

/**
 * The newest grant for exactly this scope that is neither revoked nor
 * expired, as a subquery selecting `id, consent_id, expires_at` (no row when
 * none). One definition of the rule, for ToolGrantsService and for
 * statements that read the grant together with what it is checked against.
 */
export function activeGrantSql(scope: GrantScopeSql): string {
  return `SELECT g.id, g.consent_id, g.expires_at FROM tool_grants g
  WHERE g.user_id = ${scope.userId} AND g.root_task_id = ${scope.rootTaskId} AND g.binding_id = ${scope.bindingId}
    AND g.space_id = ${scope.spaceId} AND g.provider_id = ${scope.providerId}
    AND g.definition_id IS NOT DISTINCT FROM ${scope.definitionId}
    AND g.revoked_at IS NULL AND g.expires_at > now()
  ORDER BY g.expires_at DESC LIMIT 1`;
}

/**
 * The space's web_search binding with everything the readiness check needs:
 * its tool, its provider and the provider's credential (sealed secret
 * included), and whether the tool is available in the space now. A
 * subquery selecting one row, or none without a binding; `spaceId` is an SQL
 * expression. Statements that check more in the same round trip (an
 * authoring task's grant) embed it and hand the row to
 * WebSearchReadinessService.requireReadyFrom.
 */
export function boundWebSearchSql(spaceId: string): string {
  return `SELECT b.id AS binding_id, b.created_at AS binding_created_at,
    t.id AS tool_id, t.tool_name, t.capability_id, t.capability_compatible, t.capability_validation_error,
    p.id AS provider_id, p.slug AS provider_slug, p.is_active AS provider_active, p.command_argv, p.cwd, p.env,
    p.secret_env_var, p.credential_id, p.last_error,
    c.id IS NOT NULL AS credential_found, c.is_active AS credential_active, c.secret_sealed,
    COALESCE(${AVAILABLE}, false) AS available
  FROM space_capability_bindings b
  JOIN tool_provider_tools t ON t.id = b.provider_tool_id
  JOIN tool_providers p ON p.id = b.provider_id
  LEFT JOIN credentials c ON c.id = p.credential_id
  LEFT JOIN space_tool_enablements e ON e.provider_id = b.provider_id AND e.space_id = b.space_id
  WHERE b.space_id = ${spaceId} AND b.capability_id = '${WEB_SEARCH}'`;
}

/** The columns of `boundWebSearchSql`; all null in an outer join's row when the space has no binding. */
export interface BoundWebSearchRow {
  binding_id: string | null;
  binding_created_at: Date | null;
  tool_id: string | null;
  tool_name: string | null;
  capability_id: string | null;
  capability_compatible: boolean | null;
  capability_validation_error: string | null;
  provider_id: string | null;
  provider_slug: string | null;
  provider_active: boolean | null;
  command_argv: string[] | null;
  cwd: string | null;
  env: Record<string, string> | null;
  secret_env_var: string | null;
  credential_id: string | null;
  last_error: string | null;
  credential_found: boolean | null;
  credential_active: boolean | null;
  secret_sealed: string | null;
  available: boolean | null;
}
