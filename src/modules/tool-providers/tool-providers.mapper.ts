import { CredentialResponse } from './dto/credential.dto';
import { SpaceToolProviderResponse } from './dto/space-tools.dto';
import { ProviderToolResponse, ToolProviderResponse } from './dto/tool-provider.dto';
import type { Credential } from './entities/credential.entity';
import type { ProviderTool } from './entities/provider-tool.entity';
import type { SpaceToolEnablement } from './entities/space-tool-enablement.entity';
import type { ToolProvider } from './entities/tool-provider.entity';

export function toCredentialResponse(c: Credential): CredentialResponse {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    is_active: c.isActive,
    secret_set: c.secretSet,
    created_at: c.createdAt,
  };
}

export interface ToolCounts {
  toolCount: number;
  enabledToolCount: number;
}

export function toToolProviderResponse(p: ToolProvider, counts: ToolCounts): ToolProviderResponse {
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    description: p.description,
    kind: p.kind,
    command_argv: p.commandArgv,
    cwd: p.cwd,
    env: p.env,
    credential_id: p.credentialId,
    secret_env_var: p.secretEnvVar,
    has_credential: p.credentialId !== null,
    tool_overrides: p.toolOverrides,
    skill_instructions: p.skillInstructions,
    is_active: p.isActive,
    last_discovered_at: p.lastDiscoveredAt,
    last_error: p.lastError,
    tool_count: counts.toolCount,
    enabled_tool_count: counts.enabledToolCount,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export const namespacedName = (slug: string, toolName: string) => `${slug}.${toolName}`;

export function toProviderToolResponse(t: ProviderTool, slug: string): ProviderToolResponse {
  return {
    id: t.id,
    provider_id: t.providerId,
    tool_name: t.toolName,
    namespaced_name: namespacedName(slug, t.toolName),
    description: t.description,
    input_schema: t.inputSchema,
    risk_level: t.riskLevel,
    read_only: t.readOnly,
    writes_data: t.writesData,
    returns_sensitive: t.returnsSensitive,
    requires_confirmation: t.requiresConfirmation,
    scope_types: t.scopeTypes,
    is_enabled: t.isEnabled,
    capability_id: t.capabilityId,
    capability_compatible: t.capabilityCompatible,
    capability_validation_error: t.capabilityValidationError,
    discovered_at: t.discoveredAt,
  };
}

export function toSpaceToolProviderResponse(
  p: ToolProvider,
  enablement: SpaceToolEnablement | undefined,
  availableTools: string[],
): SpaceToolProviderResponse {
  return {
    provider_id: p.id,
    slug: p.slug,
    name: p.name,
    description: p.description,
    provider_active: p.isActive,
    enabled: enablement?.enabled ?? false,
    max_risk_level: enablement?.maxRiskLevel ?? 'read',
    allowed_tool_names: enablement?.allowedToolNames ?? null,
    available_tools: availableTools,
    updated_at: enablement?.updatedAt ?? null,
  };
}
