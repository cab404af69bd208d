import {
  checkCommandArgv,
  checkCwd,
  checkEnv,
  checkSecretEnvVar,
  checkToolOverrides,
  effectiveMetadata,
  executableName,
  isSensitiveEnvName,
  programName,
  webSearchSchemaProblem,
} from './provider-config';

const COMPLIANT = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 3, maxLength: 500 },
    max_results: { type: 'integer', minimum: 1, maximum: 8, default: 8 },
  },
  required: ['query'],
  additionalProperties: false,
};

interface SchemaDraft {
  [keyword: string]: unknown;
  properties: Record<string, Record<string, unknown>>;
}

/** A deep copy of the compliant schema with one change applied. */
function variant(change: (schema: SchemaDraft) => void): Record<string, unknown> {
  const copy = structuredClone(COMPLIANT) as SchemaDraft;
  change(copy);
  return copy;
}

describe('executableName', () => {
  it('compares base names, lowercased, without Windows suffixes', () => {
    expect(executableName('/bin/bash')).toBe('bash');
    expect(executableName('C:\\Windows\\System32\\CMD.EXE')).toBe('cmd');
    expect(executableName('./node_modules/.bin/npx')).toBe('npx');
  });
});

describe('programName', () => {
  it('drops trailing version digits and dots, and Windows suffixes', () => {
    expect(programName('python3.12')).toBe('python');
    expect(programName('/usr/bin/python3')).toBe('python');
    expect(programName('node20')).toBe('node');
    expect(programName('perl5.36.0')).toBe('perl');
    expect(programName('PHP8.1.EXE')).toBe('php');
    expect(programName('ksh93')).toBe('ksh');
    expect(programName('search-server')).toBe('search-server');
  });
});

describe('checkCommandArgv', () => {
  const fieldOf = (argv: unknown) => checkCommandArgv(argv).map((e) => e.field);

  it('accepts scripts and packages', () => {
    expect(checkCommandArgv(['node', 'server.mjs'])).toEqual([]);
    expect(checkCommandArgv(['npx', '@scope/server', '--stdio'])).toEqual([]);
    expect(checkCommandArgv(['/opt/tools/search-server'])).toEqual([]);
    expect(checkCommandArgv(['python3', '-m', 'server', '-v'])).toEqual([]);
    expect(checkCommandArgv(['python3.12', 'server.py', '--port', '3'])).toEqual([]);
    expect(checkCommandArgv(['node20', 'dist/server.js'])).toEqual([]);
    expect(checkCommandArgv(['npx', '-y', '@modelcontextprotocol/server-everything'])).toEqual([]);
  });

  it('refuses sizes and element types off the rule', () => {
    expect(fieldOf([])).toEqual(['command_argv']);
    expect(fieldOf(new Array(21).fill('x'))).toEqual(['command_argv']);
    expect(fieldOf(new Array(20).fill('x'))).toEqual([]);
    expect(fieldOf({ 0: 'node' })).toEqual(['command_argv']);
    expect(fieldOf(['node', null])).toEqual(['command_argv[1]']);
    expect(fieldOf(['node', 'a\u0000b'])).toEqual(['command_argv[1]']);
  });

  it.each([
    'sh',
    'bash',
    '/bin/bash',
    'zsh',
    'dash',
    'cmd',
    'powershell',
    'pwsh.exe',
    'sudo',
    'su',
    'env',
    'curl',
    'wget',
    'nc',
    'ssh',
    'bash5',
    'ksh93',
    'awk',
    'gawk',
    'mawk',
    '/usr/bin/nawk',
    'sed',
  ])('refuses %s', (executable) => {
    expect(fieldOf([executable, 'x'])).toEqual(['command_argv[0]']);
  });

  it.each([
    ['timeout', '5', 'bash', '-c', 'id'],
    ['nohup', 'node', 'server.js'],
    ['nice', '-n', '10', 'sh', '-c', 'id'],
    ['ionice', '-c', '3', 'sh'],
    ['setsid', 'bash'],
    ['stdbuf', '-o0', 'sh'],
    ['chrt', '-f', '1', 'sh'],
    ['taskset', '1', 'sh'],
    ['xargs', '-a', 'list', 'sh'],
    ['busybox', 'sh', '-c', 'id'],
    ['find', '.', '-exec', 'sh', '-c', 'id', ';'],
    ['/usr/bin/timeout', '5', 'node', 'server.js'],
    ['TIMEOUT.EXE', '5', 'node', 'server.js'],
  ])('refuses the program launcher in %j', (...argv) => {
    expect(checkCommandArgv(argv)).toEqual([
      { field: 'command_argv[0]', message: expect.stringMatching(/program launcher/) },
    ]);
  });

  it('refuses what npx would run under the same rules', () => {
    expect(fieldOf(['npx', '-y', 'bash', 'script.sh'])).toEqual(['command_argv[2]']);
    expect(fieldOf(['npx', 'timeout', '5', 'x'])).toEqual(['command_argv[1]']);
  });

  it.each([
    [['node', '-e', 'x'], 'command_argv[1]'],
    [['node', '--eval=x'], 'command_argv[1]'],
    [['node', '--print', 'x'], 'command_argv[1]'],
    [['nodejs', 'a.js', '-p', 'x'], 'command_argv[2]'],
    [['python', '-c', 'x'], 'command_argv[1]'],
    [['perl', '-ne', 'x'], 'command_argv[1]'],
    [['ruby', '-e', 'x'], 'command_argv[1]'],
    [['php', '-r', 'x'], 'command_argv[1]'],
    [['npx', '--call', 'x'], 'command_argv[1]'],
    [['node', '-'], 'command_argv[1]'],
    [['python3.12', '-c', 'x'], 'command_argv[1]'],
    [['node20', '-e', 'x'], 'command_argv[1]'],
    [['nodejs18', '--eval=x'], 'command_argv[1]'],
    [['perl5.36', '-E', 'say 1'], 'command_argv[1]'],
    [['perl', '-lane', 'x'], 'command_argv[1]'],
    [['ruby3.2', '-e', 'x'], 'command_argv[1]'],
    [['php8.1', '-r', 'x'], 'command_argv[1]'],
    [['php', '-R', 'x'], 'command_argv[1]'],
    [['deno', 'eval', 'x'], 'command_argv[1]'],
    [['node', '--import', 'data:text/javascript,x'], 'command_argv[2]'],
    [['node', '--import=data:text/javascript,x'], 'command_argv[1]'],
  ])('refuses the inline program in %j', (argv, field) => {
    expect(fieldOf(argv)).toEqual([field]);
  });
});

describe('checkCwd', () => {
  it.each([null, undefined, 'tools', 'tools/search', './tools', 'a..b'])('accepts %j', (cwd) => {
    expect(checkCwd(cwd)).toEqual([]);
  });
  it.each(['/tmp', '\\share', 'C:\\x', 'c:tools', '~/x', '..', '../x', 'a/../b', 'a\\..', '', 5])(
    'refuses %j',
    (cwd) => {
      expect(checkCwd(cwd).map((e) => e.field)).toEqual(['cwd']);
    },
  );
});

describe('sensitive env names', () => {
  it.each([
    'API_KEY',
    'api_key',
    'KEY',
    'MY_SECRET',
    'TOKEN_URL',
    'PASSWORD',
    'PASSWD',
    'GCP_CREDENTIAL_FILE',
    'AUTHORIZATION',
    'AWS_REGION',
    'aws_profile',
    'DATABASE_URL',
    'KEY_ID_AND_KEY',
  ])('%s is sensitive', (name) => {
    expect(isSensitiveEnvName(name)).toBe(true);
  });
  it.each(['SEARCH_KEY_ID', 'REGION', 'ENDPOINT', 'TIMEOUT_SECONDS', 'DATABASE_NAME', 'USER_AGENT'])(
    '%s is not',
    (name) => {
      expect(isSensitiveEnvName(name)).toBe(false);
    },
  );

  it.each([
    'BASH_ENV',
    'ENV',
    'PERL5OPT',
    'PERL5LIB',
    'RUBYOPT',
    'RUBYLIB',
    'PYTHONPATH',
    'PYTHONSTARTUP',
    'PYTHONHOME',
    'NODE_PATH',
    'NODE_OPTIONS',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'JDK_JAVA_OPTIONS',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'ALLOW_PRIVATE_NETWORK_TARGETS',
    'allow_private_network_targets',
  ])('checkEnv reserves %s for the service', (name) => {
    expect(checkEnv({ [name]: 'x' })).toEqual([
      { field: `env.${name}`, message: expect.stringMatching(/the service controls it/) },
    ]);
    expect(checkSecretEnvVar(name, 'c', {})).toHaveLength(1);
  });

  it('checkEnv names each refused key, and the keys the service controls', () => {
    expect(
      checkEnv({ API_KEY: 'x', PATH: '/bin', LD_PRELOAD: 'x', OK: 'x', BAD: 1, '1X': 'y' }).map(
        (e) => e.field,
      ),
    ).toEqual(['env.API_KEY', 'env.PATH', 'env.LD_PRELOAD', 'env.BAD', 'env.1X']);
    expect(checkEnv(['A'])).toEqual([{ field: 'env', message: expect.any(String) }]);
  });
});

describe('checkSecretEnvVar', () => {
  it('requires it exactly with a credential and keeps it apart from env', () => {
    expect(checkSecretEnvVar(null, null, {})).toEqual([]);
    expect(checkSecretEnvVar('SEARCH_API_KEY', 'c', {})).toEqual([]);
    expect(checkSecretEnvVar(null, 'c', {})).toHaveLength(1);
    expect(checkSecretEnvVar('SEARCH_API_KEY', null, {})).toHaveLength(1);
    expect(checkSecretEnvVar('1X', 'c', {})).toHaveLength(1);
    expect(checkSecretEnvVar('PATH', 'c', {})).toHaveLength(1);
    expect(checkSecretEnvVar('X', 'c', { X: 'plain' })).toHaveLength(1);
  });
});

describe('checkToolOverrides', () => {
  it('accepts the documented fields and names any other', () => {
    expect(
      checkToolOverrides({
        web_search: {
          risk_level: 'read',
          read_only: true,
          writes_data: false,
          returns_sensitive: false,
          requires_confirmation: false,
          scope_types: ['public_web'],
          enabled: true,
          capability_id: 'web_search',
        },
      }),
    ).toEqual([]);
    expect(
      checkToolOverrides({ t: { risk_level: 'high', extra: 1, scope_types: ['Bad Scope'] } }).map(
        (e) => e.field,
      ),
    ).toEqual(['t.risk_level', 't.extra', 't.scope_types'].map((f) => `tool_overrides.${f}`));
  });
});

describe('webSearchSchemaProblem (web-search capability rule 1)', () => {
  it('accepts the exact schema, with annotations and a $schema marker', () => {
    expect(webSearchSchemaProblem(COMPLIANT)).toBeNull();
    expect(
      webSearchSchemaProblem(
        variant((s) => {
          s.$schema = 'http://json-schema.org/draft-07/schema#';
          s.description = 'Search';
          s.properties.query.description = 'What to look for';
        }),
      ),
    ).toBeNull();
  });

  it.each<[string, (s: SchemaDraft) => void, RegExp]>([
    ['additionalProperties allowed', (s) => delete s.additionalProperties, /exactly type, properties/],
    [
      'additionalProperties true',
      (s) => (s.additionalProperties = true),
      /additionalProperties must be false/,
    ],
    ['a third property', (s) => (s.properties.lang = { type: 'string' }), /exactly query and max_results/],
    ['max_results missing', (s) => delete s.properties.max_results, /exactly query and max_results/],
    ['max_results required', (s) => (s.required = ['query', 'max_results']), /required/],
    ['query optional', (s) => (s.required = []), /required/],
    ['query too short allowed', (s) => (s.properties.query.minLength = 1), /query/],
    ['query longer allowed', (s) => (s.properties.query.maxLength = 1000), /query/],
    ['query with a pattern', (s) => (s.properties.query.pattern = '.*'), /query/],
    ['query typed as a list', (s) => (s.properties.query.type = ['string']), /query/],
    ['max_results up to 10', (s) => (s.properties.max_results.maximum = 10), /max_results/],
    ['max_results a number', (s) => (s.properties.max_results.type = 'number'), /max_results/],
    ['max_results default 5', (s) => (s.properties.max_results.default = 5), /max_results/],
    ['max_results without default', (s) => delete s.properties.max_results.default, /max_results/],
    ['an extra keyword', (s) => (s.minProperties = 1), /exactly type, properties/],
    ['not an object type', (s) => (s.type = 'array'), /type must be/],
  ])('refuses %s', (_label, change, problem) => {
    expect(webSearchSchemaProblem(variant(change))).toMatch(problem);
  });

  it('refuses what is not a schema object', () => {
    expect(webSearchSchemaProblem(null)).toMatch(/not an object/);
    expect(webSearchSchemaProblem([COMPLIANT])).toMatch(/not an object/);
  });
});

describe('effectiveMetadata', () => {
  it('treats a tool not declared read-only as writing and needing confirmation', () => {
    expect(effectiveMetadata({}, {}, undefined)).toMatchObject({
      riskLevel: 'write',
      readOnly: false,
      writesData: true,
      requiresConfirmation: true,
      isEnabled: true,
      capabilityCompatible: null,
    });
    expect(effectiveMetadata({ readOnlyHint: true }, {}, undefined)).toMatchObject({
      riskLevel: 'read',
      readOnly: true,
      writesData: false,
      requiresConfirmation: false,
    });
  });

  it('applies overrides, then checks the capability against the result', () => {
    const compatible = effectiveMetadata({ readOnlyHint: true }, COMPLIANT, { capability_id: 'web_search' });
    expect(compatible).toMatchObject({ capabilityCompatible: true, capabilityValidationError: null });
    const overridden = effectiveMetadata({}, COMPLIANT, {
      capability_id: 'web_search',
      read_only: true,
      risk_level: 'read',
      requires_confirmation: false,
      writes_data: false,
    });
    expect(overridden.capabilityCompatible).toBe(true);
    const disabled = effectiveMetadata({ readOnlyHint: true }, COMPLIANT, {
      capability_id: 'web_search',
      enabled: false,
    });
    expect(disabled).toMatchObject({
      capabilityCompatible: false,
      capabilityValidationError: 'the tool is disabled',
    });
    const unknown = effectiveMetadata({ readOnlyHint: true }, COMPLIANT, { capability_id: 'maps' });
    expect(unknown.capabilityValidationError).toMatch(/unknown capability/);
  });
});
