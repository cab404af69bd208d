import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import type { SpaceRef } from '../../common/permissions/space-access.port';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { WebSearchBindingResponse } from './dto/web-search.dto';
import { CredentialsService } from './credentials.service';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { SpawnSpec, specVersion } from './mcp-process';
import { McpSessionPool } from './mcp-session.pool';
import { WEB_SEARCH } from './provider-config';
import { ProviderRuntime, RuntimeProvider } from './provider-runtime.service';
import { SpaceToolsService } from './space-tools.service';
import { ToolGrantsService } from './tool-grants.service';
import { CapabilityNotReady, InvalidToolConfig, ProviderFailed } from './tool-providers.errors';
import { namespacedName } from './tool-providers.mapper';
import { BoundWebSearchRow, ToolProvidersQueries } from './tool-providers.queries';

/** The space's bound web_search tool, ready to call. */
export interface ReadyWebSearch {
  bindingId: string;
  providerId: string;
  providerToolId: string;
  namespacedName: string;
}

/** How long a passed health probe vouches for a provider's session in `requireReady`. */
const PROBE_REUSE_MS = 30_000;
/** From this age on, a passed probe still vouches but is renewed in the background. */
const PROBE_RENEW_MS = 20_000;

interface PassedProbe {
  /** The spec version it ran against. */
  version: string;
  /** When it started. */
  at: number;
  renewing: boolean;
}

interface Bound {
  bindingId: string;
  createdAt: Date;
  tool: {
    id: string;
    toolName: string;
    capabilityId: string | null;
    capabilityCompatible: boolean | null;
    capabilityValidationError: string | null;
  };
  provider: RuntimeProvider & { slug: string; lastError: string | null };
  credential: { id: string; isActive: boolean; secretSealed: string | null } | null;
  /** Under the space tool availability rule, now. */
  available: boolean;
}

function boundFromRow(row: BoundWebSearchRow | undefined): Bound | null {
  if (!row?.binding_id) return null;
  return {
    bindingId: row.binding_id,
    createdAt: row.binding_created_at!,
    tool: {
      id: row.tool_id!,
      toolName: row.tool_name!,
      capabilityId: row.capability_id,
      capabilityCompatible: row.capability_compatible,
      capabilityValidationError: row.capability_validation_error,
    },
    provider: {
      id: row.provider_id!,
      slug: row.provider_slug!,
      isActive: row.provider_active!,
      commandArgv: row.command_argv!,
      cwd: row.cwd,
      env: row.env!,
      secretEnvVar: row.secret_env_var,
      credentialId: row.credential_id,
      lastError: row.last_error,
    },
    credential: row.credential_found
      ? { id: row.credential_id!, isActive: row.credential_active!, secretSealed: row.secret_sealed }
      : null,
    available: row.available === true,
  };
}

interface Readiness {
  bound: Bound | null;
  errors: string[];
  checkedAt: Date | null;
  spec?: SpawnSpec | null;
}

/** What a readiness check found, kept for the call that follows it so that the call need not read it again. */
interface Readied {
  toolName: string;
  spec: SpawnSpec;
  at: number;
}

/**
 * `live`: everything checked now, with a health probe (diagnostics);
 * `cached`: before a call, reusing a recent passed probe and executable
 * lookup; `static`: no probe, so no process is started or contacted.
 */
type ReadinessMode = 'live' | 'cached' | 'static';

/** How long a readiness check stands in for the call's own lookup. */
const READIED_REUSE_MS = 5_000;

/**
 * The web_search capability of a space: its one binding, the fail-closed
 * readiness check, and calls to the bound tool through the provider's
 * warm session.
 */
@Injectable()
export class WebSearchCapabilityService {
  /** Provider id -> the last passed probe, for the spec version it ran against. */
  private readonly probes = new Map<string, PassedProbe>();
  /** What each readiness check that passed found, for the calls made with its answer. */
  private readonly readied = new WeakMap<ReadyWebSearch, Readied>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(CapabilityBinding) private readonly bindings: Repository<CapabilityBinding>,
    private readonly tx: TransactionRunner,
    private readonly prepared: PreparedQueries,
    private readonly audit: AuditService,
    private readonly runtime: ProviderRuntime,
    private readonly spaceTools: SpaceToolsService,
    private readonly sessions: McpSessionPool,
    private readonly grants: ToolGrantsService,
    private readonly credentials: CredentialsService,
    private readonly queries: ToolProvidersQueries,
  ) {}

  /** The binding and every reason it fails closed, with a live health probe. */
  async get(spaceId: string): Promise<WebSearchBindingResponse> {
    return this.response(await this.readiness(await this.findBound(spaceId), 'live'));
  }

  async put(actor: Actor, space: SpaceRef, providerToolId: string): Promise<WebSearchBindingResponse> {
    await this.tx.run(async (em) => {
      const tool = await em.getRepository(ProviderTool).findOneBy({ id: providerToolId });
      if (!tool) throw new NotFound('provider tool', providerToolId);
      if (tool.capabilityId !== WEB_SEARCH) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          "provider_tool_id names a tool without capability_id web_search (set it in the provider's tool_overrides).",
        );
      }
      if (tool.capabilityCompatible !== true) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          `provider_tool_id names a tool that is not web_search compatible: ${tool.capabilityValidationError}.`,
        );
      }
      if (!(await this.spaceTools.isAvailable(space.id, tool.id, em))) {
        throw InvalidToolConfig.field(
          'provider_tool_id',
          'provider_tool_id names a tool that is not available in this space: its provider must be active and enabled for the space, and the tool enabled, read-only and allowlisted.',
        );
      }
      const current = await this.find(em, space.id, true);
      if (current?.providerToolId === tool.id) return;
      if (current) await this.remove(em, current);
      const binding = await em.getRepository(CapabilityBinding).save(
        em.getRepository(CapabilityBinding).create({
          spaceId: space.id,
          capabilityId: WEB_SEARCH,
          providerToolId: tool.id,
          providerId: tool.providerId,
          createdBy: actor.userId,
        }),
      );
      await this.audit.record(em, actor, {
        action: 'space.web_search_bound',
        resourceType: 'capability_binding',
        resourceId: binding.id,
        spaceId: space.id,
        details: { provider_tool_id: tool.id, replaced_binding_id: current?.id ?? null },
      });
    });
    return this.get(space.id);
  }

  async delete(actor: Actor, space: SpaceRef): Promise<void> {
    await this.tx.run(async (em) => {
      const current = await this.find(em, space.id, true);
      if (!current) throw new NotFound('web_search binding');
      const revoked = await this.remove(em, current);
      await this.audit.record(em, actor, {
        action: 'space.web_search_unbound',
        resourceType: 'capability_binding',
        resourceId: current.id,
        spaceId: space.id,
        details: { grants_revoked: revoked },
      });
    });
  }

  /** The space's bound web_search tool when healthy; otherwise a DomainError (409) whose detail lists the readiness errors. */
  async requireReady(spaceId: string): Promise<ReadyWebSearch> {
    return this.requireReadyBound(await this.findBound(spaceId), 'cached');
  }

  /**
   * The same check for a binding row the caller read itself (with
   * `boundWebSearchSql`, in a statement that reads more): no query of its
   * own while the provider's last health probe and executable lookup are
   * recent. With `probe: false` it checks only what needs no process (the
   * binding, provider, credential, executable, discovery, schema and
   * availability) and starts or contacts nothing: for a search that may not
   * call the provider yet (no consent); its answer is not for `call`.
   */
  async requireReadyFrom(
    row: BoundWebSearchRow | undefined,
    { probe }: { probe: boolean } = { probe: true },
  ): Promise<ReadyWebSearch> {
    return this.requireReadyBound(boundFromRow(row), probe ? 'cached' : 'static');
  }

  private async requireReadyBound(found: Bound | null, mode: ReadinessMode): Promise<ReadyWebSearch> {
    const { bound, errors, spec } = await this.readiness(found, mode);
    if (!bound || !spec || errors.length) throw new CapabilityNotReady(errors);
    const ready: ReadyWebSearch = {
      bindingId: bound.bindingId,
      providerId: bound.provider.id,
      providerToolId: bound.tool.id,
      namespacedName: namespacedName(bound.provider.slug, bound.tool.toolName),
    };
    if (mode !== 'static') this.readied.set(ready, { toolName: bound.tool.toolName, spec, at: Date.now() });
    return ready;
  }

  /** Calls the bound tool with {query, max_results}; answers the tool's parsed JSON output (structuredContent, or the JSON text content). Throws a DomainError 502 on tool error/timeout/oversize. */
  async call(ready: ReadyWebSearch, args: { query: string; max_results: number }): Promise<unknown> {
    const { toolName, spec } = await this.target(ready);
    const timeout = this.config.toolProviders.callTimeoutMs;
    try {
      const session = await this.sessions.session(spec, timeout);
      const result = await session.callTool(
        toolName,
        { query: args.query, max_results: args.max_results },
        timeout,
      );
      if (result.isError) {
        throw new ProviderFailed(
          `The web_search tool reported an error: ${session.sanitize(firstText(result.content) ?? 'no detail')}`,
        );
      }
      return parseOutput(result);
    } catch (error) {
      if (error instanceof ProviderFailed) this.probes.delete(ready.providerId);
      throw error;
    }
  }

  /** The tool and spawn spec to call: what the readiness check that answered `ready` found, else read again (and checked again). */
  private async target(ready: ReadyWebSearch): Promise<{ toolName: string; spec: SpawnSpec }> {
    const readied = this.readied.get(ready);
    if (readied && Date.now() - readied.at < READIED_REUSE_MS) return readied;
    const tool = await this.bindings.manager
      .getRepository(ProviderTool)
      .createQueryBuilder('t')
      .innerJoinAndSelect('t.provider', 'p')
      .leftJoinAndSelect('p.credential', 'c')
      .addSelect('c.secretSealed')
      .where('t.id = :toolId AND t.providerId = :providerId', {
        toolId: ready.providerToolId,
        providerId: ready.providerId,
      })
      .getOne();
    const provider = tool?.provider;
    if (!tool || !provider) throw new CapabilityNotReady(['no_binding: the bound tool no longer exists']);
    const credential = provider.credential ? this.credentials.unseal(provider.credential) : null;
    // A missing executable shows as the spawn's own 502 when a session has to start.
    const { spec, problems } = await this.runtime.prepare(
      provider,
      this.bindings.manager,
      'skip',
      credential,
    );
    if (!spec || problems.length)
      throw new CapabilityNotReady(problems.map((p) => `${p.code}: ${p.message}`));
    return { toolName: tool.toolName, spec };
  }

  private async readiness(bound: Bound | null, mode: ReadinessMode): Promise<Readiness> {
    if (!bound)
      return {
        bound: null,
        errors: ['no_binding: no web_search tool is bound in this space'],
        checkedAt: null,
      };
    const { tool, provider } = bound;
    const errors: string[] = [];
    const credential = bound.credential ? this.credentials.unseal(bound.credential) : null;
    const { spec, problems } = await this.runtime.prepare(
      provider,
      this.bindings.manager,
      mode === 'live' ? 'fresh' : 'cached',
      credential,
    );
    errors.push(...problems.map((p) => `${p.code}: ${p.message}`));
    if (provider.lastError !== null)
      errors.push(`discovery_failed: the last discovery failed: ${provider.lastError}`);
    if (tool.capabilityId !== WEB_SEARCH || tool.capabilityCompatible !== true) {
      errors.push(
        `incompatible_schema: the bound tool is not web_search compatible: ${tool.capabilityValidationError ?? 'capability_id is not web_search'}`,
      );
    }
    if (!bound.available) {
      errors.push(
        'tool_unavailable: the bound tool is not available in this space (provider enablement, tool enablement or allowlist)',
      );
    }
    let checkedAt: Date | null = null;
    // A process that cannot start for a reason listed above is not probed.
    if (mode !== 'static' && spec && !problems.length) {
      checkedAt = new Date();
      const probeError = await this.probe(spec, tool.toolName, mode === 'cached');
      if (probeError) errors.push(`health_probe_failed: ${probeError}`);
    }
    return { bound, errors, checkedAt, spec };
  }

  /**
   * Lists the provider's tools on its warm session; null when healthy, else
   * why not. With `reuse`, a passed probe younger than 30 s stands; one past
   * 20 s is renewed in the background, so that a steady stream of calls
   * never waits for a probe while none ever relies on one older than 30 s.
   */
  private async probe(spec: SpawnSpec, toolName: string, reuse: boolean): Promise<string | null> {
    const version = specVersion(spec);
    const last = this.probes.get(spec.providerId);
    if (reuse && last && last.version === version) {
      const age = Date.now() - last.at;
      if (age < PROBE_REUSE_MS) {
        if (age >= PROBE_RENEW_MS && !last.renewing) {
          last.renewing = true;
          void this.renewProbe(spec, toolName, version, last);
        }
        return null;
      }
    }
    return this.probeNow(spec, toolName, version);
  }

  private async probeNow(spec: SpawnSpec, toolName: string, version: string): Promise<string | null> {
    const timeout = this.config.toolProviders.healthTimeoutMs;
    const startedAt = Date.now();
    try {
      const session = await this.sessions.session(spec, timeout);
      const tools = await session.listAllTools(timeout);
      if (!tools.some((t) => t.name === toolName)) {
        this.probes.delete(spec.providerId);
        return `the provider no longer lists ${toolName}`;
      }
      this.probes.set(spec.providerId, { version, at: startedAt, renewing: false });
      return null;
    } catch (error) {
      this.probes.delete(spec.providerId);
      if (error instanceof ProviderFailed) return error.reason;
      throw error;
    }
  }

  /** A background probe: its pass counts only if nothing (a failed call, another probe) replaced `last` meanwhile. */
  private async renewProbe(
    spec: SpawnSpec,
    toolName: string,
    version: string,
    last: PassedProbe,
  ): Promise<void> {
    const timeout = this.config.toolProviders.healthTimeoutMs;
    const startedAt = Date.now();
    let passed = false;
    try {
      const session = await this.sessions.session(spec, timeout);
      passed = (await session.listAllTools(timeout)).some((t) => t.name === toolName);
    } catch {
      // A failure is the next call's to find and report: it probes again, inline.
    }
    if (this.probes.get(spec.providerId) !== last) return;
    if (passed) this.probes.set(spec.providerId, { version, at: startedAt, renewing: false });
    else this.probes.delete(spec.providerId);
  }

  private find(em: EntityManager, spaceId: string, lock = false): Promise<CapabilityBinding | null> {
    return em.getRepository(CapabilityBinding).findOne({
      where: { spaceId, capabilityId: WEB_SEARCH },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** The binding with its tool, provider and credential, and whether the tool is available in the space: one query. */
  private async findBound(spaceId: string): Promise<Bound | null> {
    const [row] = await this.queries.boundWebSearch(this.prepared, spaceId);
    return boundFromRow(row);
  }

  /** Deletes a binding and revokes its grants; answers how many were revoked. */
  private async remove(em: EntityManager, binding: CapabilityBinding): Promise<number> {
    const revoked = await this.grants.revokeForBinding(em, binding.id);
    await em.getRepository(CapabilityBinding).delete(binding.id);
    return revoked;
  }

  private response(readiness: Readiness): WebSearchBindingResponse {
    const { bound, errors, checkedAt } = readiness;
    return {
      capability_id: WEB_SEARCH,
      binding_id: bound?.bindingId ?? null,
      provider_tool_id: bound?.tool.id ?? null,
      provider_id: bound?.provider.id ?? null,
      namespaced_name: bound ? namespacedName(bound.provider.slug, bound.tool.toolName) : null,
      healthy: errors.length === 0,
      readiness_errors: errors,
      checked_at: checkedAt,
      created_at: bound?.createdAt ?? null,
    };
  }
}

function firstText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  const text = content.find((c: { type?: unknown }) => c?.type === 'text') as { text?: unknown } | undefined;
  return typeof text?.text === 'string' ? text.text : null;
}

/** structuredContent when the tool gave it, else its first text content read as JSON. */
function parseOutput(result: { structuredContent?: unknown; content?: unknown }): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  const text = firstText(result.content);
  if (text === null) throw new ProviderFailed('The web_search tool answered no JSON output.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderFailed('The web_search tool answered text that is not JSON.');
  }
}
