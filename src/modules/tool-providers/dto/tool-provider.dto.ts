import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { BooleanField, StringField, TextField, UuidField } from '../../../common/validation/field.decorators';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

// Command settings are checked by the service against the spec's provider
// rules, which answer 400 naming the field; here they are only documented.

const OVERRIDE_DOC =
  'Keyed by tool name: `{risk_level (read|write), read_only, writes_data, returns_sensitive, requires_confirmation, scope_types (snake_case names such as space or public_web), enabled, capability_id (web_search)}`, each optional. Applied to the discovered tools at once and at every discovery.';

/** One `tool_overrides` entry, for the document (the service checks the object itself). */
export class ToolOverrideEntry {
  @ApiProperty({ required: false, enum: ['read', 'write'] }) risk_level?: string;
  @ApiProperty({ required: false }) read_only?: boolean;
  @ApiProperty({ required: false }) writes_data?: boolean;
  @ApiProperty({ required: false }) returns_sensitive?: boolean;
  @ApiProperty({ required: false }) requires_confirmation?: boolean;
  @ApiProperty({ required: false, type: [String] }) scope_types?: string[];
  @ApiProperty({ required: false }) enabled?: boolean;
  @ApiProperty({ required: false, type: String, nullable: true, example: 'web_search' })
  capability_id?: string | null;
}

const COMMAND_ARGV_DOC =
  "The program and its arguments, run without a shell. Shells, `sudo`, `su`, `env`, `curl`, `wget`, `nc`, `ssh`, awk and sed, and program launchers (`timeout`, `nohup`, `nice`, `ionice`, `setsid`, `stdbuf`, `chrt`, `taskset`, `xargs`, `busybox`, `find`, ...) are refused, compared by the executable's base name without a version suffix (so `/bin/bash`, `python3.12` and `node20` are matched too), as is an interpreter given an inline program (`-c`, `-e`, `-E`, `--eval`, `-p`, `--print`, `-r`, `-`, php's `-B`/`-R`, a `data:` URL); what `npx` runs obeys the same rules. `node` with a script path and `npx` with a package are allowed. 400 when refused.";

const commandArgv = (required: boolean, description: string): ApiPropertyOptions => ({
  type: [String],
  required,
  minItems: 1,
  maxItems: 20,
  example: ['node', 'tools/search-server.mjs'],
  description,
});

class ProviderCommandFields {
  @Allow()
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    description:
      "Working directory relative to the service's own, without `..` segments (400 otherwise); null for the service's directory.",
  })
  cwd?: unknown;

  @Allow()
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Non-secret variables for the process; with `PATH` and the secret variable they are its whole environment. Names containing SECRET, TOKEN, PASSWORD, PASSWD, KEY (but `*_KEY_ID`), CREDENTIAL or AUTH, `AWS_*` and `DATABASE_URL` are refused, as are the variables the service controls: PATH, `ALLOW_PRIVATE_NETWORK_TARGETS` (passed on from the operator setting), and those that load code into a process or interpreter (LD_*, DYLD_*, NODE_OPTIONS, NODE_PATH, BASH_ENV, ENV, PERL5OPT, PERL5LIB, PERLLIB, RUBYOPT, RUBYLIB, PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS) (400). ' +
      "`VERITY_WEB_SEARCH_ENDPOINT`, the bundled web-search adapter's endpoint, is held to the outbound-target " +
      'policy with the web-search rules (422 naming `env.VERITY_WEB_SEARCH_ENDPOINT`). ' +
      OUTBOUND_POLICY_NOTE,
  })
  env?: unknown;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'A credential from `/admin/credentials`: 404 when it does not exist, 400 when it is inactive.',
  })
  credential_id?: string | null;

  @Allow()
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    example: 'SEARCH_API_KEY',
    description:
      "The variable that receives the credential's secret; required with `credential_id`, refused without one (400).",
  })
  secret_env_var?: unknown;

  @Allow()
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ToolOverrideEntry) },
    description: OVERRIDE_DOC,
  })
  tool_overrides?: unknown;

  @StringField({ optional: true, max: 20_000, description: 'Guidance for the AI on using these tools.' })
  skill_instructions?: string;

  @BooleanField({
    optional: true,
    description: 'An inactive provider cannot be discovered (400) and fails closed.',
  })
  is_active?: boolean;

  @StringField({ optional: true, max: 2000 })
  description?: string;
}

export class CreateToolProviderDto extends ProviderCommandFields {
  @Allow()
  @ApiProperty({
    type: String,
    example: 'web-search',
    pattern: '^[a-z0-9][a-z0-9_-]*$',
    maxLength: 64,
    description:
      'Lowercase letters, digits, hyphens and underscores, starting with a letter or digit, at most 64 characters (400 otherwise); unique (409). Tools are named `{slug}.{tool_name}`. Cannot change later.',
  })
  slug: unknown;

  @TextField({ max: 200 })
  name: string;

  @Allow()
  @ApiProperty(commandArgv(true, COMMAND_ARGV_DOC))
  command_argv: unknown;

  @Allow()
  @ApiProperty({
    type: String,
    required: false,
    default: 'mcp_stdio',
    enum: ['mcp_stdio'],
    description: 'Only `mcp_stdio` (400 otherwise).',
  })
  kind?: unknown;
}

export class UpdateToolProviderDto extends ProviderCommandFields {
  @TextField({ optional: true, max: 200 })
  name?: string;

  // Without create's default: an update keeps what it leaves out (docs/decisions.md#update-bodies).
  @Allow()
  @ApiProperty({
    type: String,
    required: false,
    enum: ['mcp_stdio'],
    description: 'Kept when left out. Only `mcp_stdio` (400 otherwise).',
  })
  kind?: unknown;

  @Allow()
  @ApiProperty(commandArgv(false, `Kept when left out. ${COMMAND_ARGV_DOC}`))
  command_argv?: unknown;
}

export class ToolProviderParams {
  @UuidField()
  id: string;
}

export class ToolProviderResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['mcp_stdio'] }) kind: string;
  @ApiProperty({ type: [String] }) command_argv: string[];
  @ApiProperty({ type: String, nullable: true }) cwd: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) env: Record<string, string>;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) credential_id: string | null;
  @ApiProperty({ type: String, nullable: true }) secret_env_var: string | null;
  @ApiProperty({ description: 'Whether a credential is attached (its secret is never returned).' })
  has_credential: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(ToolOverrideEntry) } })
  tool_overrides: Record<string, unknown>;
  @ApiProperty() skill_instructions: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_discovered_at: Date | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last discovery failed; null after a success.',
  })
  last_error: string | null;
  @ApiProperty({ type: 'integer' }) tool_count: number;
  @ApiProperty({ type: 'integer' }) enabled_tool_count: number;
  @ApiProperty({ format: 'date-time' }) created_at: Date;
  @ApiProperty({ format: 'date-time' }) updated_at: Date;
}

export class DiscoveryResponse {
  @ApiProperty({ type: 'integer' }) tools_added: number;
  @ApiProperty({ type: 'integer' }) tools_updated: number;
  @ApiProperty({ type: 'integer' }) tools_removed: number;
  @ApiProperty({ type: 'integer' }) tool_count: number;
}

export class ProviderToolResponse {
  @ApiProperty({ format: 'uuid', description: 'The id a capability binding names (`provider_tool_id`).' })
  id: string;
  @ApiProperty({ format: 'uuid' }) provider_id: string;
  @ApiProperty() tool_name: string;
  @ApiProperty({ example: 'web-search.web_search' }) namespaced_name: string;
  @ApiProperty() description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Exactly as the provider listed it.',
  })
  input_schema: Record<string, unknown>;
  @ApiProperty({ enum: ['read', 'write'] }) risk_level: string;
  @ApiProperty() read_only: boolean;
  @ApiProperty() writes_data: boolean;
  @ApiProperty() returns_sensitive: boolean;
  @ApiProperty() requires_confirmation: boolean;
  @ApiProperty({ type: [String] }) scope_types: string[];
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({ type: String, nullable: true }) capability_id: string | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: "Whether the tool meets its capability's rules; null when it has no capability_id.",
  })
  capability_compatible: boolean | null;
  @ApiProperty({ type: String, nullable: true }) capability_validation_error: string | null;
  @ApiProperty({ format: 'date-time' }) discovered_at: Date;
}
