import { sentFields } from '../../common/validation/sent-fields';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, FieldError, NotFound } from '../../common/errors/domain-error';
import { violatedConstraint } from '../../common/errors/postgres-error.mapper';
import { Page } from '../../common/http/page.dto';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import {
  CreateToolProviderDto,
  ProviderToolResponse,
  ToolProviderResponse,
  UpdateToolProviderDto,
} from './dto/tool-provider.dto';
import { Credential } from './entities/credential.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { ToolProvider } from './entities/tool-provider.entity';
import { McpSessionPool } from './mcp-session.pool';
import {
  checkCommandArgv,
  checkCwd,
  checkEnv,
  checkSecretEnvCollision,
  checkSecretEnvVar,
  checkToolOverrides,
  effectiveMetadata,
  SLUG_PATTERN,
  ToolOverride,
} from './provider-config';
import { ToolGrantsService } from './tool-grants.service';
import { InvalidToolConfig } from './tool-providers.errors';
import { ToolCounts, toProviderToolResponse, toToolProviderResponse } from './tool-providers.mapper';
import { ENDPOINT_VAR } from '../../bin/metasearch/adapter-config';
import { OutboundPolicy, OutboundTargetRefused } from '../../platform/outbound-http/outbound-policy.service';

const MAX_SLUG = 64;
const CREDENTIAL_FK = 'tool_providers_credential_fk';

/** Provider administration (superadmin): settings, their validation, counters and deletion. */
@Injectable()
export class ToolProvidersService {
  constructor(
    @InjectRepository(ToolProvider) private readonly providers: Repository<ToolProvider>,
    @InjectRepository(ProviderTool) private readonly tools: Repository<ProviderTool>,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly grants: ToolGrantsService,
    private readonly sessions: McpSessionPool,
    private readonly outbound: OutboundPolicy,
  ) {}

  async list(skip: number, limit: number): Promise<Page<ToolProviderResponse>> {
    const [items, total] = await this.providers.findAndCount({
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take: limit,
    });
    const counts = await this.counts(
      this.providers.manager,
      items.map((p) => p.id),
    );
    return { items: items.map((p) => toToolProviderResponse(p, counts.get(p.id) ?? NO_TOOLS)), total };
  }

  async get(id: string): Promise<ToolProviderResponse> {
    return this.response(this.providers.manager, await this.require(this.providers.manager, id));
  }

  async create(actor: Actor, dto: CreateToolProviderDto): Promise<ToolProviderResponse> {
    const errors: FieldError[] = [];
    const slug = dto.slug;
    if (typeof slug !== 'string' || slug.length > MAX_SLUG || !SLUG_PATTERN.test(slug)) {
      errors.push({
        field: 'slug',
        message: `slug must be 1 to ${MAX_SLUG} lowercase letters, digits, hyphens or underscores, starting with a letter or digit.`,
      });
    }
    const provider = this.providers.create({
      id: randomUUID(),
      slug: slug as string,
      name: dto.name,
      description: dto.description ?? '',
      kind: 'mcp_stdio',
      commandArgv: dto.command_argv as string[],
      cwd: (dto.cwd as string | null | undefined) ?? null,
      env: (dto.env as Record<string, string> | undefined) ?? {},
      credentialId: dto.credential_id ?? null,
      secretEnvVar: (dto.secret_env_var as string | null | undefined) ?? null,
      toolOverrides: (dto.tool_overrides as Record<string, ToolOverride> | undefined) ?? {},
      skillInstructions: dto.skill_instructions ?? '',
      isActive: dto.is_active ?? true,
      lastDiscoveredAt: null,
      lastError: null,
    });
    errors.push(...this.check(provider, dto, true));
    if (errors.length) throw new InvalidToolConfig(errors);
    await this.checkWebSearchEndpoint(provider.env);
    return this.credentialGoneIsNotFound(provider.credentialId, async (em) => {
      await this.requireUsableCredential(em, provider.credentialId);
      if (await em.getRepository(ToolProvider).exists({ where: { slug: provider.slug } })) {
        throw new Conflict(`A tool provider with slug "${provider.slug}" already exists.`, 'slug_taken');
      }
      await em.getRepository(ToolProvider).save(provider);
      await this.audit.record(em, actor, {
        action: 'tool_provider.created',
        resourceType: 'tool_provider',
        resourceId: provider.id,
        details: { slug: provider.slug, command: provider.commandArgv[0] },
      });
      return this.response(em, await this.require(em, provider.id));
    });
  }

  async update(actor: Actor, id: string, dto: UpdateToolProviderDto): Promise<ToolProviderResponse> {
    const result = await this.credentialGoneIsNotFound(dto.credential_id ?? null, async (em) => {
      const provider = await this.require(em, id, true);
      const overridesChanged = dto.tool_overrides !== undefined;
      if (dto.name !== undefined) provider.name = dto.name;
      if (dto.description !== undefined) provider.description = dto.description;
      if (dto.command_argv !== undefined) provider.commandArgv = dto.command_argv as string[];
      if (dto.cwd !== undefined) provider.cwd = dto.cwd as string | null;
      if (dto.env !== undefined) provider.env = (dto.env as Record<string, string> | null) ?? {};
      if (dto.credential_id !== undefined) provider.credentialId = dto.credential_id;
      if (dto.secret_env_var !== undefined) provider.secretEnvVar = dto.secret_env_var as string | null;
      if (overridesChanged) {
        provider.toolOverrides = (dto.tool_overrides as Record<string, ToolOverride> | null) ?? {};
      }
      if (dto.skill_instructions !== undefined) provider.skillInstructions = dto.skill_instructions;
      if (dto.is_active !== undefined) provider.isActive = dto.is_active;
      const errors = this.check(provider, dto);
      if (errors.length) throw new InvalidToolConfig(errors);
      if (dto.env !== undefined) await this.checkWebSearchEndpoint(provider.env);
      if (dto.credential_id !== undefined) await this.requireUsableCredential(em, provider.credentialId);
      await em.getRepository(ToolProvider).update(id, {
        name: provider.name,
        description: provider.description,
        commandArgv: provider.commandArgv,
        cwd: provider.cwd,
        env: jsonValue(provider.env),
        credentialId: provider.credentialId,
        secretEnvVar: provider.secretEnvVar,
        toolOverrides: jsonValue(provider.toolOverrides),
        skillInstructions: provider.skillInstructions,
        isActive: provider.isActive,
        updatedAt: new Date(),
      });
      if (overridesChanged) await this.reapplyOverrides(em, provider);
      await this.audit.record(em, actor, {
        action: 'tool_provider.updated',
        resourceType: 'tool_provider',
        resourceId: id,
        details: { fields: sentFields(dto) },
      });
      return this.response(em, await this.require(em, id));
    });
    // The next call starts a process with the new settings (an inactive provider gets none).
    await this.sessions.stop(id);
    return result;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const provider = await this.require(em, id, true);
      const revoked = await this.grants.revokeForProvider(em, id);
      // Tools, space enablements and capability bindings go with it (foreign keys, ON DELETE CASCADE).
      await em.getRepository(ToolProvider).delete(id);
      await this.audit.record(em, actor, {
        action: 'tool_provider.deleted',
        resourceType: 'tool_provider',
        resourceId: id,
        details: { slug: provider.slug, grants_revoked: revoked },
      });
    });
    await this.sessions.stop(id);
  }

  async listTools(id: string): Promise<ProviderToolResponse[]> {
    const provider = await this.require(this.providers.manager, id);
    const tools = await this.tools.find({ where: { providerId: id }, order: { toolName: 'ASC' } });
    return tools.map((t) => toProviderToolResponse(t, provider.slug));
  }

  async require(em: EntityManager, id: string, lock = false): Promise<ToolProvider> {
    const provider = await em
      .getRepository(ToolProvider)
      .findOne({ where: { id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!provider) throw new NotFound('tool provider', id);
    return provider;
  }

  /**
   * The bundled web-search adapter's endpoint, when a provider's env sets it,
   * follows the outbound-URL policy on saving (422 naming the variable), as
   * the adapter does again when it starts and on every connection.
   */
  private async checkWebSearchEndpoint(env: Record<string, string> | null): Promise<void> {
    const endpoint = env?.[ENDPOINT_VAR]?.trim();
    if (!endpoint) return;
    const refused = await this.outbound.urlRefusal(endpoint, 'web_search');
    if (refused) throw new OutboundTargetRefused(`env.${ENDPOINT_VAR}`, refused);
  }

  /** The spec's provider validation rules on the merged settings; only fields given are re-checked. */
  private check(provider: ToolProvider, dto: UpdateToolProviderDto, creating = false): FieldError[] {
    const errors: FieldError[] = [];
    if (dto.kind !== undefined && dto.kind !== 'mcp_stdio') {
      errors.push({ field: 'kind', message: 'kind must be mcp_stdio, the only supported kind.' });
    }
    if (creating || dto.command_argv !== undefined) errors.push(...checkCommandArgv(dto.command_argv));
    if (dto.cwd !== undefined) errors.push(...checkCwd(dto.cwd));
    if (dto.env !== undefined) errors.push(...checkEnv(dto.env));
    if (dto.tool_overrides !== undefined) errors.push(...checkToolOverrides(dto.tool_overrides));
    // Deleting a credential leaves secret_env_var without one (readiness reports it): the pairing
    // is checked only when either side changes, so the provider stays editable meanwhile.
    const pairingChanged = creating || dto.credential_id !== undefined || dto.secret_env_var !== undefined;
    const secretEnvVar = provider.secretEnvVar as unknown;
    if (secretEnvVar !== null && typeof secretEnvVar !== 'string') {
      errors.push({ field: 'secret_env_var', message: 'secret_env_var must be a string or null.' });
    } else if (errors.some((e) => e.field.startsWith('env'))) {
      return errors;
    } else if (pairingChanged) {
      errors.push(...checkSecretEnvVar(provider.secretEnvVar, provider.credentialId, provider.env ?? {}));
    } else if (dto.env !== undefined) {
      errors.push(...checkSecretEnvCollision(provider.secretEnvVar, provider.env ?? {}));
    }
    return errors;
  }

  /**
   * Runs `work` in a transaction, answering 404 for the credential when it was
   * deleted between `requireUsableCredential` and the write (the foreign key
   * refuses the row), as the check itself would have.
   */
  private async credentialGoneIsNotFound<T>(
    credentialId: string | null,
    work: (em: EntityManager) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.tx.run(work);
    } catch (error) {
      const violated = violatedConstraint(error);
      if (credentialId && violated?.code === '23503' && violated.constraint === CREDENTIAL_FK) {
        throw new NotFound('credential', credentialId);
      }
      throw error;
    }
  }

  /** 404 for a credential that does not exist; 400 for an inactive one (a setting that cannot work). */
  private async requireUsableCredential(em: EntityManager, credentialId: string | null): Promise<void> {
    if (credentialId === null) return;
    const credential = await em.getRepository(Credential).findOneBy({ id: credentialId });
    if (!credential) throw new NotFound('credential', credentialId);
    if (!credential.isActive) {
      throw InvalidToolConfig.field(
        'credential_id',
        `credential_id names an inactive credential (${credentialId}).`,
      );
    }
  }

  /** Overrides apply to the stored tools at once, not only at the next discovery. */
  private async reapplyOverrides(em: EntityManager, provider: ToolProvider): Promise<void> {
    const tools = await em.getRepository(ProviderTool).findBy({ providerId: provider.id });
    for (const tool of tools) {
      const meta = effectiveMetadata(tool.hints, tool.inputSchema, provider.toolOverrides[tool.toolName]);
      await em.getRepository(ProviderTool).update(tool.id, meta);
    }
  }

  private async response(em: EntityManager, provider: ToolProvider): Promise<ToolProviderResponse> {
    const counts = await this.counts(em, [provider.id]);
    return toToolProviderResponse(provider, counts.get(provider.id) ?? NO_TOOLS);
  }

  private async counts(em: EntityManager, providerIds: string[]): Promise<Map<string, ToolCounts>> {
    if (!providerIds.length) return new Map();
    const rows = await em
      .getRepository(ProviderTool)
      .createQueryBuilder('t')
      .select('t.providerId', 'provider_id')
      .addSelect('count(*)::int', 'tool_count')
      .addSelect('(count(*) FILTER (WHERE t.isEnabled))::int', 'enabled_tool_count')
      .where({ providerId: In(providerIds) })
      .groupBy('t.providerId')
      .getRawMany<{ provider_id: string; tool_count: number; enabled_tool_count: number }>();
    return new Map(
      rows.map((r) => [r.provider_id, { toolCount: r.tool_count, enabledToolCount: r.enabled_tool_count }]),
    );
  }
}

const NO_TOOLS: ToolCounts = { toolCount: 0, enabledToolCount: 0 };
