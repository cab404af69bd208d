import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
// Loaded only where an MCP provider is spawned (McpSessionPool imports this file on first use, issue 28).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { redactText } from '../../platform/logging/redact';
import { cleanEnvironment, ProcessLimits, ServiceEnvironment, SpawnSpec } from './mcp-spawn';
import { ProviderFailed } from './tool-providers.errors';

const STDERR_TAIL_BYTES = 2048;
// Our own timers enforce the limits (and kill the process); the SDK's request
// timeouts are only a backstop, set later so that ours always fire first.
const SDK_TIMEOUT_SLACK_MS = 1_000;

/**
 * The SDK's stdio transport, counting the bytes the process writes on
 * stdout so that a flood is stopped at the cap rather than at the end of
 * the time limit. The SDK keeps its child process private; it is read once
 * after start (the SDK version is pinned exactly).
 */
class MeteredStdioTransport extends StdioClientTransport {
  child: ChildProcess | undefined;
  onStdoutBytes: (count: number) => void = () => undefined;
  onExit: (code: number | null) => void = () => undefined;

  override async start(): Promise<void> {
    await super.start();
    this.child = (this as unknown as { _process?: ChildProcess })._process;
    this.child?.stdout?.on('data', (chunk: Buffer) => this.onStdoutBytes(chunk.length));
    this.child?.once('exit', (code) => this.onExit(code));
  }
}

/** What a tools/call answered, as far as callers read it. */
export interface ToolCallResult {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
}

/**
 * One running MCP stdio server and the SDK client talking to it. Every
 * failure (spawn error, exit, timeout, output flood, protocol error) becomes
 * a ProviderFailed whose reason names the cause and never the secret or raw
 * output; stderr is kept as a short tail and logged only redacted.
 */
export class McpProcess {
  private readonly logger = new Logger('ToolProviders');
  private readonly client = new Client({ name: 'verity', version: '1.0.0' });
  private readonly transport: MeteredStdioTransport;
  private outputBytes = 0;
  private stderrTail = '';
  /** Why the process was stopped, once it was; the first cause wins. */
  private failure: ProviderFailed | null = null;
  private failedSignal!: (error: ProviderFailed) => void;
  /** Rejects when the process dies or is killed; raced against every exchange. */
  private readonly failed: Promise<never>;
  closed = false;

  constructor(
    readonly spec: SpawnSpec,
    private readonly limits: ProcessLimits,
    service: ServiceEnvironment,
  ) {
    this.failed = new Promise<never>((_resolve, reject) => {
      this.failedSignal = reject;
    });
    this.failed.catch(() => undefined);
    this.transport = new MeteredStdioTransport({
      command: spec.argv[0],
      args: spec.argv.slice(1),
      env: cleanEnvironment(spec, service),
      cwd: spec.cwd === null ? undefined : resolve(process.cwd(), spec.cwd),
      stderr: 'pipe',
      // A single line beyond the cap is refused by the SDK's read buffer too.
      maxBufferSize: limits.outputCapBytes,
    });
    this.transport.onStdoutBytes = (count) => {
      this.outputBytes += count;
      if (this.outputBytes > this.limits.outputCapBytes) {
        this.fail(
          `The provider wrote more than ${Math.round(this.limits.outputCapBytes / 1024)} KB of output.`,
        );
      }
    };
    this.transport.onExit = (code) => {
      // A process we stopped ourselves has nothing more to report.
      if (this.closed) return;
      this.fail(`The provider process exited${code === null ? '' : ` with code ${code}`}.`);
    };
    this.transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
  }

  get alive(): boolean {
    return !this.closed && this.failure === null;
  }

  /** Starts the process and runs the MCP handshake within `timeoutMs`. */
  async open(timeoutMs: number): Promise<void> {
    const timer = setTimeout(
      () => this.fail(`The provider did not answer within ${seconds(timeoutMs)}.`),
      timeoutMs,
    );
    try {
      await this.guard(this.connect(timeoutMs));
    } finally {
      clearTimeout(timer);
    }
  }

  private async connect(timeoutMs: number): Promise<void> {
    try {
      await this.client.connect(this.transport, { timeout: timeoutMs + SDK_TIMEOUT_SLACK_MS });
    } catch (error) {
      throw this.classify(error);
    }
  }

  /** Every tool over all pages, within `timeoutMs` in total. */
  async listAllTools(timeoutMs: number): Promise<Tool[]> {
    // The cap is per request: health probes on a warm session must not add up to it.
    this.outputBytes = 0;
    const deadline = Date.now() + timeoutMs;
    const timer = setTimeout(
      () => this.fail(`The provider did not answer within ${seconds(timeoutMs)}.`),
      timeoutMs,
    );
    try {
      const tools: Tool[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await this.guard(
          this.request(() =>
            this.client.listTools(cursor === undefined ? {} : { cursor }, {
              timeout: Math.max(1, deadline - Date.now()) + SDK_TIMEOUT_SLACK_MS,
            }),
          ),
        );
        tools.push(...page.tools);
        cursor = page.nextCursor;
        // A provider repeating a cursor would keep us listing until the time limit.
        if (cursor !== undefined) {
          if (seen.has(cursor)) throw new ProviderFailed('The provider repeated a tools/list cursor.');
          seen.add(cursor);
        }
      } while (cursor !== undefined);
      return tools;
    } finally {
      clearTimeout(timer);
    }
  }

  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<ToolCallResult> {
    this.outputBytes = 0;
    const timer = setTimeout(
      () => this.fail(`The tool did not answer within ${seconds(timeoutMs)}.`),
      timeoutMs,
    );
    try {
      // The compatibility union's legacy `toolResult` form carries none of the fields callers read.
      return (await this.guard(
        this.request(() =>
          this.client.callTool({ name, arguments: args }, undefined, {
            timeout: timeoutMs + SDK_TIMEOUT_SLACK_MS,
          }),
        ),
      )) as ToolCallResult;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the process at once; an idle or replaced session needs no grace period. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.transport.child?.kill('SIGKILL');
    await this.client.close().catch(() => undefined);
  }

  private async request<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.classify(error);
    }
  }

  private guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.failed]);
  }

  /** Records the first failure, kills the process, and fails whatever waits on it. */
  private fail(reason: string): void {
    if (this.failure) return;
    this.failure = new ProviderFailed(reason);
    this.failedSignal(this.failure);
    this.logStderr(reason);
    void this.close();
  }

  private classify(error: unknown): ProviderFailed {
    if (this.failure) return this.failure;
    if (error instanceof ProviderFailed) return error;
    const code = (error as { code?: unknown }).code;
    const command = this.spec.argv[0];
    let reason: string;
    if (code === 'ENOENT') reason = `The provider's executable was not found: ${command}.`;
    else if (code === 'EACCES') reason = `The provider's executable may not be run: ${command}.`;
    else
      reason = `The provider failed: ${this.sanitize(error instanceof Error ? error.message : String(error))}`;
    this.fail(reason);
    return this.failure ?? new ProviderFailed(reason);
  }

  /** Text from the provider, safe to store and show: no secret, no control characters, short. */
  sanitize(text: string): string {
    let out = text;
    if (this.spec.secret && this.spec.secret.value.length > 0) {
      out = out.split(this.spec.secret.value).join('[REDACTED]');
    }
    return redactText(out)
      .replace(/\p{Cc}+/gu, ' ')
      .slice(0, 300);
  }

  private logStderr(reason: string): void {
    const tail = this.stderrTail.trim();
    this.logger.warn(
      `Tool provider ${this.spec.providerId}: ${reason}${tail ? ` Its stderr ended with: ${this.sanitize(tail)}` : ''}`,
    );
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
