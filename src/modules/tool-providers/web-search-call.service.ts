import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { CredentialsService } from './credentials.service';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { SpawnSpec } from './mcp-spawn';
import { McpSessionPool } from './mcp-session.pool';
import { ProviderRuntime } from './provider-runtime.service';
import { CapabilityNotReady, ProviderFailed } from './tool-providers.errors';
import { ReadyWebSearch, WebSearchReadinessService } from './web-search-readiness.service';

/**
 * Calls to a space's bound web_search tool through the provider's warm
 * session, with the answer of a readiness check
 * (WebSearchReadinessService.requireReady or requireReadyFrom).
 */
@Injectable()
export class WebSearchCallService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(CapabilityBinding) private readonly bindings: Repository<CapabilityBinding>,
    private readonly runtime: ProviderRuntime,
    private readonly sessions: McpSessionPool,
    private readonly credentials: CredentialsService,
    private readonly readiness: WebSearchReadinessService,
  ) {}

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
      if (error instanceof ProviderFailed) this.readiness.forgetProbe(ready.providerId);
      throw error;
    }
  }

  /** The tool and spawn spec to call: what the readiness check that answered `ready` found, else read again (and checked again). */
  private async target(ready: ReadyWebSearch): Promise<{ toolName: string; spec: SpawnSpec }> {
    const readied = this.readiness.readiedFor(ready);
    if (readied) return readied;
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
