import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import type { McpProcess } from './mcp-process';
import { OUTPUT_CAP_BYTES, SpawnSpec, specVersion } from './mcp-spawn';

interface Session {
  version: string;
  process: Promise<McpProcess>;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Warm stdio sessions, one per provider, so that a tool call does not start
 * a process. A session is keyed by provider id and the version of what
 * reaches the process (settings, credential, secret): any change starts a
 * new one. A session dies with its process, on a timeout or an output
 * flood, or after an idle period; the next use starts it again.
 */
@Injectable()
export class McpSessionPool implements OnModuleDestroy {
  private readonly sessions = new Map<string, Session>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** A fresh process outside the pool (discovery): the caller closes it. */
  async spawn(spec: SpawnSpec, timeoutMs: number): Promise<McpProcess> {
    const started = await this.create(spec);
    try {
      await started.open(timeoutMs);
    } catch (error) {
      await started.close();
      throw error;
    }
    return started;
  }

  /** The provider's warm session, started (within `timeoutMs`) if it has none or it is stale. */
  async session(spec: SpawnSpec, timeoutMs: number): Promise<McpProcess> {
    const version = specVersion(spec);
    for (;;) {
      const current = this.sessions.get(spec.providerId);
      if (current && current.version === version) {
        const warm = await current.process.catch(() => null);
        if (warm?.alive) {
          this.touch(spec.providerId, current);
          return warm;
        }
        // Another caller replaced it while we waited: use theirs.
        if (this.sessions.get(spec.providerId) !== current) continue;
      }
      if (current) void this.drop(spec.providerId, current);
      const session: Session = { version, process: this.spawn(spec, timeoutMs), idleTimer: null };
      this.sessions.set(spec.providerId, session);
      // A session that failed to start is forgotten, so the next call tries again.
      session.process.catch(() => this.forget(spec.providerId, session));
      const started = await session.process;
      this.touch(spec.providerId, session);
      return started;
    }
  }

  /** Stops the provider's session (deleted, deactivated, or failing). */
  async stop(providerId: string): Promise<void> {
    const session = this.sessions.get(providerId);
    if (session) await this.drop(providerId, session);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.sessions.entries()].map(([id, session]) => this.drop(id, session)));
  }

  private async create(spec: SpawnSpec): Promise<McpProcess> {
    // The MCP SDK is loaded with the first provider process, not at boot (issue 28).
    const { McpProcess } = await import('./mcp-process.js');
    return new McpProcess(
      spec,
      { outputCapBytes: OUTPUT_CAP_BYTES },
      {
        path: this.config.toolProviders.path,
        allowPrivateNetworkTargets: this.config.allowPrivateNetworkTargets,
      },
    );
  }

  private touch(providerId: string, session: Session): void {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(
      () => void this.drop(providerId, session),
      this.config.toolProviders.sessionIdleMs,
    );
    session.idleTimer.unref();
  }

  private forget(providerId: string, session: Session): void {
    if (session.idleTimer) clearTimeout(session.idleTimer);
    if (this.sessions.get(providerId) === session) this.sessions.delete(providerId);
  }

  private async drop(providerId: string, session: Session): Promise<void> {
    this.forget(providerId, session);
    const running = await session.process.catch(() => null);
    await running?.close();
  }
}
