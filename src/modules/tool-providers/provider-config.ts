import { basename } from 'node:path';
import type { FieldError } from '../../common/errors/domain-error';

/** The spec's validation rules for a provider's command settings (docs/decisions.md#provider-commands), as pure checks. */

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** MCP tool names: letters, digits, `_`, `-`, `.` (the MCP specification's recommendation). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const MAX_ARGV = 20;
const MAX_ARG_LENGTH = 4096;
const MAX_ENV_ENTRIES = 50;
const MAX_ENV_VALUE = 4096;
const MAX_OVERRIDES = 500;

export const RISK_LEVELS = ['read', 'write'] as const;

// Shells run whatever program text they are given; they are refused outright.
const SHELLS = new Set([
  'sh',
  'bash',
  'rbash',
  'zsh',
  'dash',
  'ash',
  'ksh',
  'mksh',
  'lksh',
  'oksh',
  'yash',
  'csh',
  'tcsh',
  'fish',
  'nu',
  'xonsh',
  'elvish',
  'cmd',
  'powershell',
  'pwsh',
]);
// Tools that run another command or reach the network themselves.
const DENIED = new Set([
  'sudo',
  'su',
  'doas',
  'pkexec',
  'env',
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'ssh',
]);
// Launchers whose operands are another command line (`timeout 5 bash -c ...`), so
// checking argv[0] alone would let a shell through; an MCP server is never one of them.
const LAUNCHERS = new Set([
  'timeout',
  'nohup',
  'nice',
  'renice',
  'ionice',
  'setsid',
  'stdbuf',
  'unbuffer',
  'chrt',
  'taskset',
  'numactl',
  'xargs',
  'parallel',
  'busybox',
  'toybox',
  'find',
  'time',
  'watch',
  'flock',
  'chroot',
  'unshare',
  'nsenter',
  'setpriv',
  'runuser',
  'sg',
  'newgrp',
  'systemd-run',
  'script',
  'strace',
  'ltrace',
  'gdb',
  'valgrind',
  'expect',
  'screen',
  'tmux',
  'exec',
  'command',
  'eval',
  'start',
]);
// Their first operand is a program (awk's `system()`, sed's `e` command run shell commands).
const PROGRAM_TEXT_TOOLS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'sed', 'gsed']);
// Interpreters may run a script or a package, never an inline program.
const INTERPRETERS = new Set([
  'node',
  'nodejs',
  'npx',
  'python',
  'pypy',
  'ruby',
  'perl',
  'php',
  'deno',
  'bun',
  'lua',
  'luajit',
  'rscript',
  'osascript',
]);
const INLINE_FLAGS = new Set(['-c', '-e', '--eval', '-p', '--print', '-r', '--call', '-']);
// Flags that take program text in one interpreter only (php -B/-R/-E, perl -E/-x).
const INLINE_FLAGS_OF: Record<string, Set<string>> = {
  php: new Set(['-B', '-R', '-E', '-F']),
  perl: new Set(['-E', '-x']),
};
// Subcommands that take program text (`deno eval ...`).
const INLINE_SUBCOMMANDS: Record<string, Set<string>> = { deno: new Set(['eval', 'repl']) };
// Names that hold secrets, by docs/decisions.md#provider-commands; `*_KEY_ID` names an identifier, not a key.
const SENSITIVE_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH/;
// The service sets PATH itself; loader and interpreter start-up variables would let configuration
// inject code into the process; ALLOW_PRIVATE_NETWORK_TARGETS is the operator's switch, passed on by the service.
const RESERVED_ENV = new RegExp(
  '^(PATH|LD_[A-Z_]*|DYLD_[A-Z_]*|NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV|PERL5OPT|PERL5LIB|PERLLIB|' +
    'RUBYOPT|RUBYLIB|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|' +
    'JDK_JAVA_OPTIONS|ALLOW_PRIVATE_NETWORK_TARGETS)$',
);

/** The executable's name as compared with the lists: no directory, lowercased, no Windows suffix. */
export function executableName(command: string): string {
  return basename(command.replace(/\\/g, '/'))
    .toLowerCase()
    .replace(/\.(exe|cmd|bat|com)$/, '');
}

/** The program behind a versioned name (`python3.12`, `node20`, `perl5.36`): trailing version digits and dots removed. */
export function programName(command: string): string {
  const name = executableName(command);
  return name.replace(/[-_]?[0-9][0-9.]*$/, '') || name;
}

export function checkCommandArgv(argv: unknown): FieldError[] {
  const field = 'command_argv';
  if (!Array.isArray(argv) || argv.length < 1 || argv.length > MAX_ARGV) {
    return [{ field, message: `${field} must be a list of 1 to ${MAX_ARGV} strings.` }];
  }
  for (const [i, arg] of argv.entries()) {
    if (typeof arg !== 'string' || arg.length === 0 || arg.length > MAX_ARG_LENGTH || arg.includes('\0')) {
      return [
        {
          field: `${field}[${i}]`,
          message: `${field}[${i}] must be a non-empty string of at most ${MAX_ARG_LENGTH} characters.`,
        },
      ];
    }
  }
  const args = argv as string[];
  const refused = programProblem(args[0], `${field}[0]`);
  if (refused) return [refused];
  const name = programName(args[0]);
  if (INTERPRETERS.has(name)) {
    const inline = args.slice(1).findIndex((arg, i) => isInline(name, arg, i === 0));
    if (inline >= 0) {
      const at = `${field}[${inline + 1}]`;
      return [{ field: at, message: `${at} would make ${name} run an inline program; give a script path.` }];
    }
    // npx runs the command it is given: that command obeys the same rules.
    if (name === 'npx') {
      const target = args.findIndex((arg, i) => i > 0 && !arg.startsWith('-'));
      const launched = target > 0 ? programProblem(args[target], `${field}[${target}]`) : null;
      if (launched) return [launched];
    }
  }
  return [];
}

/** Why `command` may not be run as a provider's program, or null. */
function programProblem(command: string, at: string): FieldError | null {
  const name = programName(command);
  if (SHELLS.has(name)) return { field: at, message: `${at} may not be a shell (${name}).` };
  if (DENIED.has(name)) return { field: at, message: `${at} names a denied executable (${name}).` };
  if (LAUNCHERS.has(name)) {
    return { field: at, message: `${at} names a program launcher (${name}); give the server's own command.` };
  }
  if (PROGRAM_TEXT_TOOLS.has(name)) {
    return { field: at, message: `${at} names a denied executable (${name}): it runs program text.` };
  }
  return null;
}

function isInline(name: string, arg: string, first: boolean): boolean {
  if (INLINE_FLAGS.has(arg) || INLINE_FLAGS_OF[name]?.has(arg)) return true;
  if (first && INLINE_SUBCOMMANDS[name]?.has(arg)) return true;
  if (/^--(eval|print|call)=/.test(arg)) return true;
  // Code in a data: URL (`node --import data:text/javascript,...`).
  if (/^(--[a-z-]+=)?data:/i.test(arg)) return true;
  // Bundled short flags such as `-ce`, `-pe` or perl's `-lane`.
  return /^-[a-zA-Z0-9]*[cepE][a-zA-Z0-9]*$/.test(arg) && arg.length <= 6;
}

export function checkCwd(cwd: unknown): FieldError[] {
  if (cwd === null || cwd === undefined) return [];
  const field = 'cwd';
  if (typeof cwd !== 'string' || cwd.length === 0 || cwd.length > 1024 || cwd.includes('\0')) {
    return [
      { field, message: `${field} must be a non-empty relative directory of at most 1024 characters.` },
    ];
  }
  if (cwd.startsWith('/') || cwd.startsWith('\\') || /^[A-Za-z]:/.test(cwd) || cwd.startsWith('~')) {
    return [{ field, message: `${field} must be relative, not absolute.` }];
  }
  if (cwd.split(/[\\/]/).includes('..')) {
    return [{ field, message: `${field} may not contain a ".." segment.` }];
  }
  return [];
}

export function isSensitiveEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith('AWS_') || upper === 'DATABASE_URL') return true;
  return SENSITIVE_NAME.test(upper.replace(/_KEY_ID$/, '_ID'));
}

export function checkEnv(env: unknown): FieldError[] {
  const field = 'env';
  if (env === undefined || env === null) return [];
  if (typeof env !== 'object' || Array.isArray(env)) {
    return [{ field, message: `${field} must be an object of string values.` }];
  }
  const entries = Object.entries(env);
  if (entries.length > MAX_ENV_ENTRIES) {
    return [{ field, message: `${field} may hold at most ${MAX_ENV_ENTRIES} variables.` }];
  }
  const errors: FieldError[] = [];
  for (const [key, value] of entries) {
    const at = `${field}.${key}`;
    if (!ENV_NAME_PATTERN.test(key) || key.length > 128) {
      errors.push({ field: at, message: `${at} is not a valid environment variable name.` });
    } else if (RESERVED_ENV.test(key.toUpperCase())) {
      errors.push({ field: at, message: `${at} may not be set: the service controls it.` });
    } else if (isSensitiveEnvName(key)) {
      errors.push({
        field: at,
        message: `${at} has a sensitive name: store the value as a credential and name it in secret_env_var.`,
      });
    } else if (typeof value !== 'string' || value.length > MAX_ENV_VALUE || value.includes('\0')) {
      errors.push({ field: at, message: `${at} must be a string of at most ${MAX_ENV_VALUE} characters.` });
    }
  }
  return errors;
}

export function checkSecretEnvVar(
  secretEnvVar: string | null,
  credentialId: string | null,
  env: Record<string, string>,
): FieldError[] {
  const field = 'secret_env_var';
  if (secretEnvVar === null) {
    return credentialId ? [{ field, message: `${field} is required when credential_id is set.` }] : [];
  }
  if (!ENV_NAME_PATTERN.test(secretEnvVar) || secretEnvVar.length > 128) {
    return [{ field, message: `${field} must be a valid environment variable name.` }];
  }
  if (RESERVED_ENV.test(secretEnvVar.toUpperCase())) {
    return [{ field, message: `${field} may not name a variable the service controls.` }];
  }
  if (!credentialId) return [{ field, message: `${field} needs a credential_id.` }];
  return checkSecretEnvCollision(secretEnvVar, env);
}

/** The secret's variable must not also be a plain `env` entry. */
export function checkSecretEnvCollision(
  secretEnvVar: string | null,
  env: Record<string, string>,
): FieldError[] {
  if (secretEnvVar === null || !Object.hasOwn(env, secretEnvVar)) return [];
  return [{ field: 'secret_env_var', message: 'secret_env_var names a variable that env already sets.' }];
}

/** A provider-level override of one tool's metadata. */
export interface ToolOverride {
  risk_level?: string;
  read_only?: boolean;
  writes_data?: boolean;
  returns_sensitive?: boolean;
  requires_confirmation?: boolean;
  scope_types?: string[];
  enabled?: boolean;
  capability_id?: string | null;
}

const BOOLEAN_OVERRIDES = [
  'read_only',
  'writes_data',
  'returns_sensitive',
  'requires_confirmation',
  'enabled',
];

export function checkToolOverrides(overrides: unknown): FieldError[] {
  const field = 'tool_overrides';
  if (overrides === undefined || overrides === null) return [];
  if (typeof overrides !== 'object' || Array.isArray(overrides)) {
    return [{ field, message: `${field} must be an object keyed by tool name.` }];
  }
  const entries = Object.entries(overrides);
  if (entries.length > MAX_OVERRIDES) {
    return [{ field, message: `${field} may hold at most ${MAX_OVERRIDES} tools.` }];
  }
  const errors: FieldError[] = [];
  for (const [tool, entry] of entries) {
    const at = `${field}.${tool}`;
    if (!TOOL_NAME_PATTERN.test(tool)) {
      errors.push({ field: at, message: `${at}: the key must be a tool name.` });
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      errors.push({ field: at, message: `${at} must be an object.` });
      continue;
    }
    for (const [key, value] of Object.entries(entry)) {
      const path = `${at}.${key}`;
      if (key === 'risk_level') {
        if (!RISK_LEVELS.includes(value as (typeof RISK_LEVELS)[number])) {
          errors.push({ field: path, message: `${path} must be one of: ${RISK_LEVELS.join(', ')}.` });
        }
      } else if (BOOLEAN_OVERRIDES.includes(key)) {
        if (typeof value !== 'boolean') errors.push({ field: path, message: `${path} must be a boolean.` });
      } else if (key === 'scope_types') {
        const valid =
          Array.isArray(value) &&
          value.length <= 20 &&
          value.every((s) => typeof s === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(s));
        if (!valid) {
          errors.push({ field: path, message: `${path} must be a list of at most 20 snake_case names.` });
        }
      } else if (key === 'capability_id') {
        if (value !== null && (typeof value !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(value))) {
          errors.push({ field: path, message: `${path} must be a snake_case capability name or null.` });
        }
      } else {
        errors.push({ field: path, message: `${path} is not a known override field.` });
      }
    }
  }
  return errors;
}

/** What a provider says about a tool (MCP annotations), before overrides. */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

export interface EffectiveToolMetadata {
  riskLevel: string;
  readOnly: boolean;
  writesData: boolean;
  returnsSensitive: boolean;
  requiresConfirmation: boolean;
  scopeTypes: string[];
  isEnabled: boolean;
  capabilityId: string | null;
  capabilityCompatible: boolean | null;
  capabilityValidationError: string | null;
}

/**
 * The tool's metadata: the provider's hints (a tool not declared read-only
 * counts as writing), then the admin's override on top, then the capability
 * check against the result.
 */
export function effectiveMetadata(
  hints: ToolHints,
  inputSchema: unknown,
  override: ToolOverride | undefined,
): EffectiveToolMetadata {
  const hintedReadOnly = hints.readOnlyHint === true;
  const readOnly = override?.read_only ?? hintedReadOnly;
  const meta: EffectiveToolMetadata = {
    riskLevel: override?.risk_level ?? (readOnly ? 'read' : 'write'),
    readOnly,
    writesData: override?.writes_data ?? !readOnly,
    returnsSensitive: override?.returns_sensitive ?? false,
    requiresConfirmation: override?.requires_confirmation ?? (!readOnly || hints.destructiveHint === true),
    scopeTypes: override?.scope_types ?? [],
    isEnabled: override?.enabled ?? true,
    capabilityId: override?.capability_id ?? null,
    capabilityCompatible: null,
    capabilityValidationError: null,
  };
  if (meta.capabilityId !== null) {
    const problems = capabilityProblems(meta, inputSchema);
    meta.capabilityCompatible = problems.length === 0;
    meta.capabilityValidationError = problems.length ? problems.join('; ') : null;
  }
  return meta;
}

export const WEB_SEARCH = 'web_search';

function capabilityProblems(meta: EffectiveToolMetadata, inputSchema: unknown): string[] {
  if (meta.capabilityId !== WEB_SEARCH) return [`unknown capability "${meta.capabilityId}"`];
  const problems: string[] = [];
  if (!meta.isEnabled) problems.push('the tool is disabled');
  if (!meta.readOnly) problems.push('the tool is not read-only');
  if (meta.riskLevel !== 'read') problems.push('the risk level is not read');
  if (meta.returnsSensitive) problems.push('the tool returns sensitive data');
  if (meta.requiresConfirmation) problems.push('the tool requires confirmation');
  const schemaProblem = webSearchSchemaProblem(inputSchema);
  if (schemaProblem) problems.push(schemaProblem);
  return problems;
}

// Keywords that only annotate a schema: they change nothing about what it accepts.
const ANNOTATIONS = new Set(['title', 'description']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every key of `value` other than annotations, sorted. */
function constraintKeys(value: Record<string, unknown>, extraAllowed: string[] = []): string[] {
  return Object.keys(value)
    .filter((key) => !ANNOTATIONS.has(key) && !extraAllowed.includes(key))
    .sort();
}

function sameKeys(actual: string[], expected: string[]): boolean {
  const want = [...expected].sort();
  const got = [...actual].sort();
  return got.length === want.length && got.every((key, i) => key === want[i]);
}

/**
 * Web-search capability rule 1: the input schema is exactly an object with
 * `query` (string, 3 to 500 characters, required), `max_results` (integer 1
 * to 8, default 8, optional) and no additional properties. Only annotations
 * (`title`, `description`, and `$schema` at the top) may be added. Null when
 * it matches, else the first difference.
 */
export function webSearchSchemaProblem(schema: unknown): string | null {
  if (!isPlainObject(schema)) return 'the input schema is not an object schema';
  if (
    !sameKeys(constraintKeys(schema, ['$schema']), ['type', 'properties', 'required', 'additionalProperties'])
  ) {
    return 'the input schema must have exactly type, properties, required and additionalProperties';
  }
  if (schema.type !== 'object') return 'the input schema type must be "object"';
  if (schema.additionalProperties !== false) return 'additionalProperties must be false';
  if (!Array.isArray(schema.required) || schema.required.length !== 1 || schema.required[0] !== 'query') {
    return 'required must be exactly ["query"]';
  }
  const properties = schema.properties;
  if (!isPlainObject(properties) || !sameKeys(Object.keys(properties), ['query', 'max_results'])) {
    return 'properties must be exactly query and max_results';
  }
  const query = properties.query;
  if (
    !isPlainObject(query) ||
    !sameKeys(constraintKeys(query), ['type', 'minLength', 'maxLength']) ||
    query.type !== 'string' ||
    query.minLength !== 3 ||
    query.maxLength !== 500
  ) {
    return 'query must be exactly a string of 3 to 500 characters';
  }
  const maxResults = properties.max_results;
  if (
    !isPlainObject(maxResults) ||
    !sameKeys(constraintKeys(maxResults), ['type', 'minimum', 'maximum', 'default']) ||
    maxResults.type !== 'integer' ||
    maxResults.minimum !== 1 ||
    maxResults.maximum !== 8 ||
    maxResults.default !== 8
  ) {
    return 'max_results must be exactly an integer from 1 to 8 with default 8';
  }
  return null;
}
