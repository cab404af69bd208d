import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { CredentialsService } from './credentials.service';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { SpawnSpec, specVersion } from './mcp-spawn';
import { McpSessionPool } from './mcp-session.pool';
import { WEB_SEARCH } from './provider-config';
import { ProviderRuntime, RuntimeProvider } from './provider-runtime.service';
import type { BoundWebSearchRow } from './tool-providers.contract';
import { CapabilityNotReady, ProviderFailed } from './tool-providers.errors';
import { namespacedName } from './tool-providers.mapper';
import { ToolProvidersQueries } from './tool-providers.queries';

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

/** The space's binding with its tool, provider and credential, as the readiness check reads it. */
export interface Bound {
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

/** What a readiness check found: the binding (null: none) and every reason it fails closed. */
export interface Readiness {
  bound: Bound | null;
  errors: string[];
  checkedAt: Date | null;
  spec?: SpawnSpec | null;
}

/** What a readiness check found, kept for the call that follows it so that the call need not read it again. */
export interface Readied {
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
 * The fail-closed readiness check of a space's web_search binding: the
 * binding, provider, credential, executable, discovery, schema and
 * availability, and a health probe on the provider's warm session (a passed
 * probe reused for 30 s). Binding CRUD is WebSearchBindingService's, the
 * call WebSearchCallService's, which reuses what a check found here.
 */
@Injectable()
export class WebSearchReadinessService {
  /** Provider id -> the last passed probe, for the spec version it ran against. */
  private readonly probes = new Map<string, PassedProbe>();
  /** What each readiness check that passed found, for the calls made with its answer. */
  private readonly readied = new WeakMap<ReadyWebSearch, Readied>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(CapabilityBinding) private readonly bindings: Repository<CapabilityBinding>,
    private readonly prepared: PreparedQueries,
    private readonly runtime: ProviderRuntime,
    private readonly sessions: McpSessionPool,
    private readonly credentials: CredentialsService,
    private readonly queries: ToolProvidersQueries,
  ) {}

  /** The binding and every reason it fails closed, with a live health probe (diagnostics). */
  async checkLive(spaceId: string): Promise<Readiness> {
    return this.readiness(await this.findBound(spaceId), 'live');
  }

  /** The space's bound web_search tool when healthy; otherwise a DomainError (409) whose detail lists the readiness errors. */
  async requireReady(spaceId: string): Promise<ReadyWebSearch> {
    return this.requireReadyBound(await this.findBound(spaceId), 'cached');
  }

  /**
   * The same check for a binding row the caller read itself (with
   * `boundWebSearchSql` of tool-providers.contract.ts, in a statement that
   * reads more): no query of its
   * own while the provider's last health probe and executable lookup are
   * recent. With `probe: false` it checks only what needs no process (the
   * binding, provider, credential, executable, discovery, schema and
   * availability) and starts or contacts nothing: for a search that may not
   * call the provider yet (no consent); its answer is not for
   * WebSearchCallService.call.
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

  /** What the check that answered `ready` found, while it may stand in for the call's own lookup (5 s). */
  readiedFor(ready: ReadyWebSearch): Readied | undefined {
    const readied = this.readied.get(ready);
    return readied && Date.now() - readied.at < READIED_REUSE_MS ? readied : undefined;
  }

  /** Forgets the provider's passed probe (a call failed): the next check probes again, inline. */
  forgetProbe(providerId: string): void {
    this.probes.delete(providerId);
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

  /** The binding with its tool, provider and credential, and whether the tool is available in the space: one query. */
  private async findBound(spaceId: string): Promise<Bound | null> {
    const [row] = await this.queries.boundWebSearch(this.prepared, spaceId);
    return boundFromRow(row);
  }
}
