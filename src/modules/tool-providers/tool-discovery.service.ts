import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EntityManager, In, QueryDeepPartialEntity, Repository } from 'typeorm';
import { jsonValue } from '../../database/json-column';
import type { Actor } from '../../common/auth/actor';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { DiscoveryResponse } from './dto/tool-provider.dto';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { ToolProvider } from './entities/tool-provider.entity';
import type { McpProcess } from './mcp-process';
import { McpSessionPool } from './mcp-session.pool';
import { effectiveMetadata, TOOL_NAME_PATTERN, ToolHints } from './provider-config';
import { ProviderRuntime } from './provider-runtime.service';
import { ToolGrantsService } from './tool-grants.service';
import { InvalidToolConfig, ProviderFailed, ProviderInactive } from './tool-providers.errors';
import { ToolProvidersService } from './tool-providers.service';

const MAX_DESCRIPTION = 10_000;
const INSERT_BATCH = 200;

/**
 * Discovery: start the provider's process (a fresh one, not the warm
 * session), list every tool within the time and output limits, and make
 * the stored tools match: added, updated (schema, description, hints or
 * overrides changed), removed (with the grants of bindings on them revoked).
 */
@Injectable()
export class ToolDiscoveryService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(ToolProvider) private readonly providers: Repository<ToolProvider>,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly providerAdmin: ToolProvidersService,
    private readonly runtime: ProviderRuntime,
    private readonly sessions: McpSessionPool,
    private readonly grants: ToolGrantsService,
  ) {}

  async discover(actor: Actor, id: string): Promise<DiscoveryResponse> {
    const provider = await this.providerAdmin.require(this.providers.manager, id);
    if (!provider.isActive) throw new ProviderInactive(id);
    const { spec, problems } = await this.runtime.prepare(provider, this.providers.manager);
    const credentialProblem = problems.find((p) => p.code.startsWith('credential_'));
    if (!spec || credentialProblem) {
      throw InvalidToolConfig.field(
        'credential_id',
        `Discovery cannot start: ${credentialProblem?.message}.`,
      );
    }
    let tools: Tool[];
    try {
      tools = await this.listTools(spec);
    } catch (error) {
      if (error instanceof ProviderFailed) {
        await this.providers.update(id, { lastError: error.reason });
      }
      throw error;
    }
    return this.store(actor, id, tools);
  }

  private async listTools(spec: Parameters<McpSessionPool['spawn']>[0]): Promise<Tool[]> {
    const limit = this.config.toolProviders.discoveryTimeoutMs;
    const deadline = Date.now() + limit;
    let process: McpProcess | null = null;
    try {
      process = await this.sessions.spawn(spec, limit);
      const tools = await process.listAllTools(Math.max(1, deadline - Date.now()));
      const names = new Set<string>();
      for (const tool of tools) {
        if (!TOOL_NAME_PATTERN.test(tool.name)) {
          throw new ProviderFailed(
            `The provider listed a tool with an invalid name: ${process.sanitize(tool.name)}.`,
          );
        }
        if (names.has(tool.name)) {
          throw new ProviderFailed(`The provider listed the tool ${tool.name} twice.`);
        }
        names.add(tool.name);
      }
      return tools;
    } finally {
      await process?.close();
    }
  }

  private async store(actor: Actor, id: string, listed: Tool[]): Promise<DiscoveryResponse> {
    return this.tx.run(async (em) => {
      const provider = await this.providerAdmin.require(em, id, true);
      const repo = em.getRepository(ProviderTool);
      const existing = new Map((await repo.findBy({ providerId: id })).map((t) => [t.toolName, t]));
      const now = new Date();
      const inserts: QueryDeepPartialEntity<ProviderTool>[] = [];
      let updated = 0;
      for (const tool of listed) {
        const hints: ToolHints = {
          ...(typeof tool.annotations?.readOnlyHint === 'boolean'
            ? { readOnlyHint: tool.annotations.readOnlyHint }
            : {}),
          ...(typeof tool.annotations?.destructiveHint === 'boolean'
            ? { destructiveHint: tool.annotations.destructiveHint }
            : {}),
        };
        const inputSchema = tool.inputSchema as Record<string, unknown>;
        const fields = {
          description: (tool.description ?? '').slice(0, MAX_DESCRIPTION),
          inputSchema: jsonValue(inputSchema),
          hints: jsonValue(hints),
          ...effectiveMetadata(hints, inputSchema, provider.toolOverrides[tool.name]),
        };
        const current = existing.get(tool.name);
        if (!current) {
          inserts.push({ providerId: id, toolName: tool.name, discoveredAt: now, ...fields });
          continue;
        }
        existing.delete(tool.name);
        const changed = Object.entries({ ...fields, inputSchema, hints }).some(
          ([key, value]) => canonical(value) !== canonical(current[key as keyof ProviderTool]),
        );
        if (changed) {
          await repo.update(current.id, fields);
          updated++;
        }
      }
      const removed = [...existing.values()].map((t) => t.id);
      if (removed.length) await this.removeTools(em, removed);
      await repo.update({ providerId: id }, { discoveredAt: now });
      for (let i = 0; i < inserts.length; i += INSERT_BATCH) {
        await repo.insert(inserts.slice(i, i + INSERT_BATCH));
      }
      const added = inserts.length;
      await em.getRepository(ToolProvider).update(id, { lastDiscoveredAt: now, lastError: null });
      const result = {
        tools_added: added,
        tools_updated: updated,
        tools_removed: removed.length,
        tool_count: listed.length,
      };
      await this.audit.record(em, actor, {
        action: 'tool_provider.discovered',
        resourceType: 'tool_provider',
        resourceId: id,
        details: { ...result },
      });
      return result;
    });
  }

  /** Tools the provider no longer lists: the grants of bindings on them are revoked, then they go. */
  private async removeTools(em: EntityManager, toolIds: string[]): Promise<void> {
    const bindings = await em.getRepository(CapabilityBinding).findBy({ providerToolId: In(toolIds) });
    for (const binding of bindings) await this.grants.revokeForBinding(em, binding.id);
    // Bindings on them go too (ON DELETE CASCADE).
    await em.getRepository(ProviderTool).delete({ id: In(toolIds) });
  }
}

/** JSON with sorted keys, so that stored and listed values compare by content. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
