import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';

// What a provider process is started from, kept apart from mcp-process.ts so that reading
// settings does not load the MCP SDK: that is loaded on the first spawn (issue 28).

/** Everything needed to start a provider's process; the secret is plaintext here and nowhere else. */
export interface SpawnSpec {
  providerId: string;
  argv: string[];
  cwd: string | null;
  env: Record<string, string>;
  secret: { variable: string; value: string } | null;
}

/** Changes whenever anything that reaches the process changes (settings, credential, secret). */
export function specVersion(spec: SpawnSpec): string {
  return createHash('sha256').update(JSON.stringify(spec)).digest('base64url');
}

/** Bytes of stdout (the MCP protocol stream) a process may write per discovery or per call. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

// The SDK's transport merges a default environment (HOME, USER, SHELL, ...)
// into the given one; naming those variables undefined leaves them out, as
// Node's spawn skips undefined values. The child then gets only what we pass.
const INHERITED_DEFAULTS = ['HOME', 'LOGNAME', 'SHELL', 'TERM', 'USER'];

/** What the service passes to every provider process from its own configuration. */
export interface ServiceEnvironment {
  /** The service's PATH. */
  path: string;
  /** The operator's ALLOW_PRIVATE_NETWORK_TARGETS (docs/decisions.md#private-network-targets); a provider's `env` may not set it. */
  allowPrivateNetworkTargets: boolean;
}

/**
 * The environment of docs/decisions.md#provider-processes: the provider's `env`, `PATH`, and
 * the secret variable; plus `ALLOW_PRIVATE_NETWORK_TARGETS=true` when the
 * operator turned it on, which the bundled adapter reads.
 */
export function cleanEnvironment(spec: SpawnSpec, service: ServiceEnvironment): Record<string, string> {
  const env: Record<string, string | undefined> = Object.fromEntries(
    INHERITED_DEFAULTS.map((name) => [name, undefined]),
  );
  Object.assign(env, spec.env, { PATH: service.path });
  if (service.allowPrivateNetworkTargets) env.ALLOW_PRIVATE_NETWORK_TARGETS = 'true';
  if (spec.secret) env[spec.secret.variable] = spec.secret.value;
  return env as Record<string, string>;
}

export interface ProcessLimits {
  /** How many stdout bytes one request (start, tools listing, tool call) may bring before the process is killed. */
  outputCapBytes: number;
}

/** `command` as the process would run it: a path relative to cwd, or a name looked up on PATH. */
export function commandCandidates(command: string, cwd: string | null, path: string): string[] {
  const base = resolve(process.cwd(), cwd ?? '.');
  if (command.includes('/') || command.includes('\\')) {
    return [isAbsolute(command) ? command : resolve(base, command)];
  }
  return path
    .split(':')
    .filter(Boolean)
    .map((dir) => resolve(base, dir, command));
}
