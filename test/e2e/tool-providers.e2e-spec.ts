import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { APP_CONFIG, AppConfig } from '../../src/config/app.config';
import { McpProcess } from '../../src/modules/tool-providers/mcp-process';
import { McpSessionPool } from '../../src/modules/tool-providers/mcp-session.pool';
import { ToolGrantsService } from '../../src/modules/tool-providers/tool-grants.service';
import { WebSearchCallService } from '../../src/modules/tool-providers/web-search-call.service';
import { WebSearchReadinessService } from '../../src/modules/tool-providers/web-search-readiness.service';
import { embeddedRun, startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, createSpace, createUser, rootUser, TestSpace, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';
import { recordingClient } from '../support/recording-client';
import { eventually } from '../support/server-process';

const MCP = 'test/support/mcp';
const TOOL_SERVER = `${MCP}/tool-server.mjs`;
const SECRET = `sk-e2e-${randomUUID()}`;
const WEB_SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 3, maxLength: 500 },
    max_results: { type: 'integer', minimum: 1, maximum: 8, default: 8 },
  },
  required: ['query'],
  additionalProperties: false,
};
const WEB_SEARCH_OVERRIDE = { web_search: { capability_id: 'web_search', scope_types: ['public_web'] } };

describe('External tool providers over MCP (real stdio servers, real PostgreSQL)', () => {
  let t: TestApp;
  let root: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;
  let scratch: string;
  /** Every response body the suite saw, to prove the secret never left the service. */
  const seen: string[] = [];

  const record = (res: Response) => {
    seen.push(JSON.stringify(res.body ?? ''), res.text ?? '');
    return res;
  };
  const as = (user: TestUser) => recordingClient(() => t, user, record);
  const admin = () => as(root);
  const slugOf = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

  const createProvider = async (fields: Record<string, unknown> = {}) => {
    const res = await admin().post('/admin/ai/tool-providers/', {
      slug: slugOf('tools'),
      name: 'Test tools',
      command_argv: ['node', TOOL_SERVER],
      ...fields,
    });
    if (res.status !== 201) throw new Error(`create provider: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; slug: string };
  };
  const discover = (id: string) => admin().post(`/admin/ai/tool-providers/${id}/discover`);
  const tools = async (id: string) =>
    (await admin().get(`/admin/ai/tool-providers/${id}/tools`)).body as Array<Record<string, unknown>>;
  const createCredential = async (fields: Record<string, unknown> = {}) => {
    const res = await admin().post('/admin/credentials', {
      name: 'Search key',
      kind: 'bearer',
      secret: SECRET,
      ...fields,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  /** A discovered provider with a compatible web_search tool, enabled in the space and bound there. */
  const boundWebSearch = async (target: TestSpace, fields: Record<string, unknown> = {}) => {
    const provider = await createProvider({ tool_overrides: WEB_SEARCH_OVERRIDE, ...fields });
    expect((await discover(provider.id)).status).toBe(200);
    const tool = (await tools(provider.id)).find((x) => x.tool_name === 'web_search')!;
    expect(
      (
        await as(editor).put(`/spaces/${target.slug}/ai/tool-providers/${provider.id}/enablement`, {
          enabled: true,
        })
      ).status,
    ).toBe(200);
    const bound = await as(editor).put(`/spaces/${target.slug}/ai/tool-capabilities/web_search`, {
      provider_tool_id: tool.id,
    });
    expect(bound.status).toBe(200);
    return {
      provider,
      tool,
      binding: bound.body as { binding_id: string; healthy: boolean; readiness_errors: string[] },
    };
  };
  const readiness = async (target: TestSpace) =>
    (await as(editor).get(`/spaces/${target.slug}/ai/tool-capabilities/web_search`)).body as {
      healthy: boolean;
      readiness_errors: string[];
      binding_id: string | null;
    };
  const codes = (errors: string[]) => errors.map((e) => e.split(':')[0]);

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'verity-mcp-'));
    t = await startApp({
      env: {
        TOOL_DISCOVERY_TIMEOUT_MS: '4000',
        TOOL_CALL_TIMEOUT_MS: '3000',
        TOOL_HEALTH_TIMEOUT_MS: '4000',
      },
    });
    [root, editor, viewer, outsider] = await Promise.all([
      rootUser(t.http),
      createUser(t.http),
      createUser(t.http),
      createUser(t.http),
    ]);
    space = await createSpace(t.http, editor);
    await addMember(t.http, editor, space, viewer, 'viewer');
  });
  afterAll(async () => {
    await t.close();
    rmSync(scratch, { recursive: true, force: true });
  });
  afterAll(() => {
    // After every test: no response body carried the secret.
    expect(seen.filter((body) => body.includes(SECRET))).toEqual([]);
  });

  describe('access', () => {
    const adminRoutes: Array<[method: 'get' | 'post' | 'patch' | 'delete', path: string]> = [
      ['get', '/admin/credentials'],
      ['post', '/admin/credentials'],
      ['patch', `/admin/credentials/${randomUUID()}`],
      ['delete', `/admin/credentials/${randomUUID()}`],
      ['get', '/admin/ai/tool-providers/'],
      ['post', '/admin/ai/tool-providers/'],
      ['get', `/admin/ai/tool-providers/${randomUUID()}`],
      ['patch', `/admin/ai/tool-providers/${randomUUID()}`],
      ['delete', `/admin/ai/tool-providers/${randomUUID()}`],
      ['post', `/admin/ai/tool-providers/${randomUUID()}/discover`],
      ['get', `/admin/ai/tool-providers/${randomUUID()}/tools`],
    ];

    it('keeps provider and credential administration for superadmins (403)', async () => {
      for (const [method, path] of adminRoutes) {
        expectProblem(await as(editor)[method](path), 403);
      }
    });

    it('needs edit access to the space for enablement and the capability (viewer 403, non-member 404)', async () => {
      const provider = await createProvider();
      const paths: Array<['get' | 'put' | 'delete', string, object?]> = [
        ['get', `/spaces/${space.slug}/ai/tool-providers/`],
        ['put', `/spaces/${space.slug}/ai/tool-providers/${provider.id}/enablement`, { enabled: true }],
        ['get', `/spaces/${space.slug}/ai/tool-capabilities/web_search`],
        ['put', `/spaces/${space.slug}/ai/tool-capabilities/web_search`, { provider_tool_id: randomUUID() }],
        ['delete', `/spaces/${space.slug}/ai/tool-capabilities/web_search`],
      ];
      for (const [method, path, body] of paths) {
        const call = (user: TestUser) =>
          method === 'put'
            ? as(user).put(path, body)
            : method === 'get'
              ? as(user).get(path)
              : as(user).delete(path);
        expectProblem(await call(viewer), 403);
        expectProblem(await call(outsider), 404);
      }
    });
  });

  describe('credentials', () => {
    it('seals the secret, never returns it, and lets it be replaced or removed', async () => {
      const created = await createCredential();
      const row = await admin().get('/admin/credentials?limit=200');
      const listed = row.body.items.find((c: { id: string }) => c.id === created.id);
      expect(listed).toEqual({
        id: created.id,
        name: 'Search key',
        kind: 'bearer',
        is_active: true,
        secret_set: true,
        created_at: expect.any(String),
      });
      const [stored] = await dbQuery<{ secret_sealed: string }>(
        'SELECT secret_sealed FROM credentials WHERE id = $1',
        [created.id],
      );
      expect(stored.secret_sealed).toMatch(/^v1\./);
      expect(stored.secret_sealed).not.toContain(SECRET);

      const cleared = await admin().patch(`/admin/credentials/${created.id}`, {
        secret: null,
        name: 'Renamed',
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ name: 'Renamed', secret_set: false });
      const replaced = await admin().patch(`/admin/credentials/${created.id}`, { secret: 'another-value' });
      expect(replaced.body.secret_set).toBe(true);
      expect((await admin().delete(`/admin/credentials/${created.id}`)).status).toBe(204);
      expectProblem(await admin().delete(`/admin/credentials/${created.id}`), 404);
    });

    it('refuses an unknown kind (422)', async () => {
      expectProblem(
        await admin().post('/admin/credentials', { name: 'x', kind: 'password', secret: 's' }),
        422,
      );
    });
  });

  describe('provider validation', () => {
    const refused = async (fields: Record<string, unknown>, field: string | RegExp) => {
      const res = await admin().post('/admin/ai/tool-providers/', {
        slug: slugOf('v'),
        name: 'Validation',
        command_argv: ['node', TOOL_SERVER],
        ...fields,
      });
      expectProblem(res, 400);
      const fields400 = (res.body.errors as Array<{ field: string }>).map((e) => e.field);
      expect(fields400.some((f) => (typeof field === 'string' ? f === field : field.test(f)))).toBe(true);
      if (typeof field === 'string') expect(res.body.detail).toContain(field);
      else expect(res.body.detail).toMatch(field);
    };

    it('refuses slugs off the pattern (400) and a taken slug (409)', async () => {
      for (const slug of ['Upper', '-lead', '_lead', 'has space', 'dot.ted', '', 'x'.repeat(65), 12]) {
        await refused({ slug }, 'slug');
      }
      const taken = await createProvider();
      expectProblem(
        await admin().post('/admin/ai/tool-providers/', {
          slug: taken.slug,
          name: 'Again',
          command_argv: ['node', TOOL_SERVER],
        }),
        409,
      );
      for (const slug of ['a', '0tools', 'my_tools-2']) {
        expect(
          (
            await admin().post('/admin/ai/tool-providers/', {
              slug: `${slug}${randomUUID().slice(0, 4)}`,
              name: 'ok',
              command_argv: ['node', TOOL_SERVER],
            })
          ).status,
        ).toBe(201);
      }
    });

    it('refuses a kind other than mcp_stdio (400)', async () => {
      await refused({ kind: 'http' }, 'kind');
      await refused({ kind: 'mcp_sse' }, 'kind');
    });

    it('refuses command_argv outside 1 to 20 strings (400)', async () => {
      await refused({ command_argv: [] }, 'command_argv');
      await refused({ command_argv: Array.from({ length: 21 }, () => 'node') }, 'command_argv');
      await refused({ command_argv: 'node server.mjs' }, 'command_argv');
      await refused({ command_argv: undefined }, 'command_argv');
      await refused({ command_argv: ['node', 5] }, 'command_argv[1]');
      await refused({ command_argv: ['node', ''] }, 'command_argv[1]');
    });

    it('refuses shells and denied executables by base name, and inline programs (400)', async () => {
      for (const executable of [
        'sh',
        'bash',
        '/bin/bash',
        '/usr/bin/zsh',
        'dash',
        'cmd',
        'cmd.exe',
        'C:\\Windows\\System32\\cmd.exe',
        'powershell',
        'pwsh',
        'sudo',
        'su',
        'env',
        '/usr/bin/env',
        'curl',
        'wget',
        'nc',
        'ssh',
        'bash5',
        'awk',
        'gawk',
        'mawk',
      ]) {
        await refused({ command_argv: [executable, 'server.mjs'] }, 'command_argv[0]');
      }
      // Launchers would run a shell or an inline program as their operand.
      for (const argv of [
        ['timeout', '5', 'bash', '-c', 'id'],
        ['nohup', 'sh', '-c', 'id'],
        ['nice', '-n', '5', 'bash', '-c', 'id'],
        ['ionice', '-c', '3', 'bash'],
        ['setsid', 'bash', '-c', 'id'],
        ['stdbuf', '-o0', 'sh'],
        ['chrt', '-o', '0', 'sh'],
        ['taskset', '1', 'sh'],
        ['xargs', 'sh', '-c', 'id'],
        ['busybox', 'sh', '-c', 'id'],
        ['/usr/bin/find', '.', '-exec', 'sh', '-c', 'id', ';'],
        ['awk', 'BEGIN { system("id") }'],
      ]) {
        await refused({ command_argv: argv }, 'command_argv[0]');
      }
      await refused({ command_argv: ['python3.12', '-c', 'print(1)'] }, 'command_argv[1]');
      await refused({ command_argv: ['node20', '-e', 'x'] }, 'command_argv[1]');
      await refused({ command_argv: ['perl', '-e', 'print'] }, 'command_argv[1]');
      await refused({ command_argv: ['ruby', '-e', 'puts 1'] }, 'command_argv[1]');
      await refused({ command_argv: ['php', '-r', 'echo 1;'] }, 'command_argv[1]');
      await refused({ command_argv: ['npx', '-y', 'bash', 'x.sh'] }, 'command_argv[2]');
      await refused({ command_argv: ['node', '-e', 'console.log(1)'] }, 'command_argv[1]');
      await refused({ command_argv: ['node', '--eval', 'x'] }, 'command_argv[1]');
      await refused({ command_argv: ['node', '--eval=x'] }, 'command_argv[1]');
      await refused({ command_argv: ['/usr/bin/node', '-p', 'x'] }, 'command_argv[1]');
      await refused({ command_argv: ['python3', '-c', 'print(1)'] }, 'command_argv[1]');
      await refused({ command_argv: ['perl', '-ne', 'print'] }, 'command_argv[1]');
      await refused({ command_argv: ['npx', '-c', 'rm -rf /'] }, 'command_argv[1]');
      await refused({ command_argv: ['node', 'server.mjs', '-e', 'x'] }, 'command_argv[2]');
      for (const argv of [
        ['node', 'tools/server.mjs', '--port', '3'],
        ['npx', '@scope/mcp-server'],
        ['python3', '-m', 'server'],
        ['node20', 'tools/server.mjs'],
        ['python3.12', 'server.py'],
      ]) {
        expect(
          (
            await admin().post('/admin/ai/tool-providers/', {
              slug: slugOf('ok'),
              name: 'ok',
              command_argv: argv,
            })
          ).status,
        ).toBe(201);
      }
    });

    it('refuses an absolute cwd or one with a .. segment (400)', async () => {
      for (const cwd of [
        '/tmp',
        '\\\\server\\share',
        'C:\\tools',
        '..',
        '../x',
        'a/../b',
        'a\\..\\b',
        '~/tools',
        '',
      ]) {
        await refused({ cwd }, 'cwd');
      }
      const ok = await createProvider({ cwd: 'test/support/mcp', command_argv: ['node', 'tool-server.mjs'] });
      expect(ok).toMatchObject({ cwd: 'test/support/mcp' });
    });

    it('refuses sensitive env names and variables the service controls (400), allowing *_KEY_ID', async () => {
      for (const name of [
        'API_KEY',
        'api_key',
        'MY_SECRET',
        'GITHUB_TOKEN',
        'DB_PASSWORD',
        'FTP_PASSWD',
        'GOOGLE_CREDENTIALS',
        'AUTH_HEADER',
        'OAUTH_SCOPE',
        'AWS_REGION',
        'DATABASE_URL',
        'KEYRING',
        'PATH',
        'NODE_OPTIONS',
        'LD_PRELOAD',
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
        'JAVA_TOOL_OPTIONS',
        '_JAVA_OPTIONS',
        'JDK_JAVA_OPTIONS',
        'ALLOW_PRIVATE_NETWORK_TARGETS',
        '1BAD',
      ]) {
        await refused({ env: { [name]: 'x' } }, `env.${name}`);
      }
      await refused({ env: { SETTING: 5 } }, 'env.SETTING');
      await refused({ env: ['A=1'] }, 'env');
      const ok = await createProvider({ env: { SEARCH_KEY_ID: 'k-1', REGION: 'eu' } });
      expect(ok).toMatchObject({ env: { SEARCH_KEY_ID: 'k-1', REGION: 'eu' } });
    });

    it('ties credential_id and secret_env_var together (400), 404 for a missing credential, 400 for an inactive one', async () => {
      const credential = await createCredential();
      await refused({ credential_id: credential.id }, 'secret_env_var');
      await refused({ secret_env_var: 'SEARCH_API_KEY' }, 'secret_env_var');
      await refused({ credential_id: credential.id, secret_env_var: '9LIVES' }, 'secret_env_var');
      await refused({ credential_id: credential.id, secret_env_var: 'PATH' }, 'secret_env_var');
      await refused(
        { credential_id: credential.id, secret_env_var: 'SEARCH_API_KEY', env: { SEARCH_API_KEY: 'plain' } },
        /env.SEARCH_API_KEY|secret_env_var/,
      );
      const missing = await admin().post('/admin/ai/tool-providers/', {
        slug: slugOf('c'),
        name: 'c',
        command_argv: ['node', TOOL_SERVER],
        credential_id: randomUUID(),
        secret_env_var: 'SEARCH_API_KEY',
      });
      expectProblem(missing, 404);
      const inactive = await createCredential({ is_active: false });
      await refused({ credential_id: inactive.id, secret_env_var: 'SEARCH_API_KEY' }, 'credential_id');
      const ok = await createProvider({ credential_id: credential.id, secret_env_var: 'SEARCH_API_KEY' });
      expect(ok).toMatchObject({
        has_credential: true,
        secret_env_var: 'SEARCH_API_KEY',
        credential_id: credential.id,
      });
    });

    it('PATCH refuses a kind other than mcp_stdio (400) and a credential that does not exist (404)', async () => {
      const provider = await createProvider();
      const path = `/admin/ai/tool-providers/${provider.id}`;
      expectProblem(await admin().patch(path, { kind: 'http' }), 400, /kind/);
      const missing = randomUUID();
      expectProblem(
        await admin().patch(path, { credential_id: missing, secret_env_var: 'SEARCH_API_KEY' }),
        404,
        new RegExp(missing),
      );
      expect((await admin().patch(path, { kind: 'mcp_stdio' })).body).toMatchObject({
        kind: 'mcp_stdio',
        credential_id: null,
      });
    });

    // PostgreSQL only, like the *.postgres-only suites: the embedded database serves one
    // connection, so no second transaction can hold the lock there.
    const onPostgres = embeddedRun ? () => undefined : it;
    onPostgres('answers 404, not 422, for a credential deleted between the check and the write', async () => {
      const provider = await createProvider();
      const doomed = await createCredential();
      const deleter = new Client({ connectionString: workerDatabaseUrl() });
      await deleter.connect();
      try {
        await deleter.query('BEGIN');
        await deleter.query('DELETE FROM credentials WHERE id = $1', [doomed.id]);
        const patching = admin().patch(`/admin/ai/tool-providers/${provider.id}`, {
          credential_id: doomed.id,
          secret_env_var: 'SEARCH_API_KEY',
        });
        // The credential check saw the row; the write's foreign-key check waits on the delete.
        await eventually(
          'the provider write to wait on the delete',
          async () =>
            (
              await dbQuery(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
                     AND wait_event_type = 'Lock' AND query ILIKE 'UPDATE "tool_providers"%'`,
              )
            ).length > 0,
          10_000,
        );
        await deleter.query('COMMIT');
        expectProblem(await patching, 404, new RegExp(doomed.id));
      } finally {
        await deleter.end();
      }
      expect((await admin().get(`/admin/ai/tool-providers/${provider.id}`)).body).toMatchObject({
        credential_id: null,
        secret_env_var: null,
      });
    });

    it('keeps a provider editable after its credential is deleted, failing closed until another is attached', async () => {
      const target = await createSpace(t.http, editor);
      const credential = await createCredential();
      const { provider } = await boundWebSearch(target, {
        credential_id: credential.id,
        secret_env_var: 'SEARCH_API_KEY',
      });
      expect((await admin().delete(`/admin/credentials/${credential.id}`)).status).toBe(204);
      const path = `/admin/ai/tool-providers/${provider.id}`;
      expect((await admin().get(path)).body).toMatchObject({
        credential_id: null,
        secret_env_var: 'SEARCH_API_KEY',
        has_credential: false,
      });
      for (const body of [
        { is_active: false },
        { is_active: true },
        { description: 'edited' },
        { env: { REGION: 'eu' } },
      ]) {
        const res = await admin().patch(path, body);
        expect(res.status).toBe(200);
      }
      const state = await readiness(target);
      expect(state.healthy).toBe(false);
      expect(codes(state.readiness_errors)).toEqual(['credential_incomplete']);
      expect(state.readiness_errors[0]).toMatch(/expects a secret in SEARCH_API_KEY but has no credential/);
      // Changing either side of the pair checks it again.
      expectProblem(
        await admin().patch(path, { secret_env_var: 'OTHER_API_KEY' }),
        400,
        /needs a credential_id/,
      );
      const replacement = await createCredential();
      expect((await admin().patch(path, { credential_id: replacement.id })).body).toMatchObject({
        credential_id: replacement.id,
        secret_env_var: 'SEARCH_API_KEY',
        has_credential: true,
      });
      expect(await readiness(target)).toMatchObject({ healthy: true, readiness_errors: [] });
    });

    it('checks tool_overrides entries (400)', async () => {
      await refused(
        { tool_overrides: { web_search: { risk_level: 'admin' } } },
        'tool_overrides.web_search.risk_level',
      );
      await refused(
        { tool_overrides: { web_search: { enabled: 'yes' } } },
        'tool_overrides.web_search.enabled',
      );
      await refused(
        { tool_overrides: { web_search: { colour: 'red' } } },
        'tool_overrides.web_search.colour',
      );
      await refused(
        { tool_overrides: { web_search: { scope_types: 'space' } } },
        'tool_overrides.web_search.scope_types',
      );
      await refused({ tool_overrides: { 'bad name!': {} } }, 'tool_overrides.bad name!');
      await refused({ tool_overrides: [] }, 'tool_overrides');
    });

    it('answers the documented fields with read-only counters, and PATCH re-checks what it changes', async () => {
      const provider = await createProvider({
        description: 'Canned tools',
        skill_instructions: 'Use sparingly.',
      });
      const got = await admin().get(`/admin/ai/tool-providers/${provider.id}`);
      expect(got.body).toEqual({
        id: provider.id,
        slug: provider.slug,
        name: 'Test tools',
        description: 'Canned tools',
        kind: 'mcp_stdio',
        command_argv: ['node', TOOL_SERVER],
        cwd: null,
        env: {},
        credential_id: null,
        secret_env_var: null,
        has_credential: false,
        tool_overrides: {},
        skill_instructions: 'Use sparingly.',
        is_active: true,
        last_discovered_at: null,
        last_error: null,
        tool_count: 0,
        enabled_tool_count: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expectProblem(
        await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { command_argv: ['bash'] }),
        400,
      );
      expectProblem(await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { slug: 'renamed' }), 422);
      const patched = await admin().patch(`/admin/ai/tool-providers/${provider.id}`, {
        name: 'Renamed',
        cwd: null,
      });
      expect(patched.body).toMatchObject({ name: 'Renamed', command_argv: ['node', TOOL_SERVER] });
      expectProblem(await admin().get(`/admin/ai/tool-providers/${randomUUID()}`), 404);
      expectProblem(await admin().patch(`/admin/ai/tool-providers/${randomUUID()}`, { name: 'x' }), 404);
    });
  });

  describe('discovery', () => {
    it('stores every tool (following cursors) with its schema exactly, namespaced, overrides applied', async () => {
      const provider = await createProvider({
        env: { MCP_TEST_TOOL_COUNT: '120', MCP_TEST_PAGE_SIZE: '50' },
        tool_overrides: {
          ...WEB_SEARCH_OVERRIDE,
          filler_0001: { enabled: false },
          describe_space: { scope_types: ['space'] },
        },
      });
      const res = await discover(provider.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tools_added: 123, tools_updated: 0, tools_removed: 0, tool_count: 123 });
      const listed = await tools(provider.id);
      expect(listed).toHaveLength(123);
      const search = listed.find((x) => x.tool_name === 'web_search')!;
      expect(search).toEqual({
        id: expect.any(String),
        provider_id: provider.id,
        tool_name: 'web_search',
        namespaced_name: `${provider.slug}.web_search`,
        description: 'Searches the public web (canned results).',
        input_schema: WEB_SEARCH_SCHEMA,
        risk_level: 'read',
        read_only: true,
        writes_data: false,
        returns_sensitive: false,
        requires_confirmation: false,
        scope_types: ['public_web'],
        is_enabled: true,
        capability_id: 'web_search',
        capability_compatible: true,
        capability_validation_error: null,
        discovered_at: expect.any(String),
      });
      expect(JSON.stringify(search.input_schema)).toBe(JSON.stringify(WEB_SEARCH_SCHEMA));
      const write = listed.find((x) => x.tool_name === 'write_note')!;
      expect(write).toMatchObject({
        risk_level: 'write',
        read_only: false,
        writes_data: true,
        capability_compatible: null,
      });
      expect(listed.find((x) => x.tool_name === 'describe_space')).toMatchObject({ scope_types: ['space'] });
      expect(listed.find((x) => x.tool_name === 'filler_0001')).toMatchObject({ is_enabled: false });
      const after = await admin().get(`/admin/ai/tool-providers/${provider.id}`);
      expect(after.body).toMatchObject({ tool_count: 123, enabled_tool_count: 122, last_error: null });
      expect(after.body.last_discovered_at).not.toBeNull();
    });

    it('adds, updates and removes on rediscovery, and applies changed overrides at once', async () => {
      const provider = await createProvider();
      expect((await discover(provider.id)).body).toEqual({
        tools_added: 3,
        tools_updated: 0,
        tools_removed: 0,
        tool_count: 3,
      });
      expect((await discover(provider.id)).body).toEqual({
        tools_added: 0,
        tools_updated: 0,
        tools_removed: 0,
        tool_count: 3,
      });
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { env: { MCP_TEST_TOOLSET: 'v2' } });
      expect((await discover(provider.id)).body).toEqual({
        tools_added: 1,
        tools_updated: 1,
        tools_removed: 1,
        tool_count: 3,
      });
      const names = (await tools(provider.id)).map((x) => x.tool_name);
      expect(names).toEqual(['describe_space', 'lookup_term', 'web_search']);
      expect((await tools(provider.id)).find((x) => x.tool_name === 'describe_space')!.description).toBe(
        'Describes a space, reworded.',
      );

      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, {
        tool_overrides: { web_search: { capability_id: 'web_search', returns_sensitive: true } },
      });
      const sensitive = (await tools(provider.id)).find((x) => x.tool_name === 'web_search')!;
      expect(sensitive).toMatchObject({ capability_compatible: false, returns_sensitive: true });
      expect(sensitive.capability_validation_error).toMatch(/sensitive/);
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, {
        tool_overrides: { web_search: { capability_id: 'web_search', read_only: false } },
      });
      expect(
        (await tools(provider.id)).find((x) => x.tool_name === 'web_search')!.capability_validation_error,
      ).toMatch(/not read-only/);
    });

    it('marks a near-miss web_search schema incompatible, saying why', async () => {
      const provider = await createProvider({
        command_argv: ['node', `${MCP}/noncompliant-server.mjs`],
        tool_overrides: WEB_SEARCH_OVERRIDE,
      });
      expect((await discover(provider.id)).status).toBe(200);
      const [tool] = await tools(provider.id);
      expect(tool).toMatchObject({ capability_id: 'web_search', capability_compatible: false });
      expect(tool.capability_validation_error).toMatch(/exactly/);
    });

    it('answers 400 for an inactive provider without starting it', async () => {
      const dump = join(scratch, 'inactive-env.json');
      const provider = await createProvider({ is_active: false, env: { MCP_TEST_ENV_DUMP: dump } });
      expectProblem(await discover(provider.id), 400, /inactive/);
      expect(existsSync(dump)).toBe(false);
      expectProblem(await discover(randomUUID()), 404);
    });

    it('answers 502 and keeps last_error for a missing executable, a crash, a hang and an output flood', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['verity-no-such-binary'], /executable was not found: verity-no-such-binary/],
        [['node', `${MCP}/exiting-server.mjs`], /exited with code 3/],
        [['node', `${MCP}/hanging-server.mjs`], /did not answer within 4 s/],
        [['node', `${MCP}/flooding-server.mjs`], /more than 1024 KB of output/],
      ];
      for (const [argv, reason] of cases) {
        const provider = await createProvider({ command_argv: argv });
        const res = await discover(provider.id);
        expectProblem(res, 502, reason);
        const after = await admin().get(`/admin/ai/tool-providers/${provider.id}`);
        expect(after.body.last_error).toMatch(reason);
        expect(after.body.last_discovered_at).toBeNull();
      }
    });

    it('clears last_error after a successful discovery', async () => {
      const marker = join(scratch, 'fail-once');
      writeFileSync(marker, '');
      const provider = await createProvider({ env: { MCP_TEST_FAIL_FILE: marker } });
      expectProblem(await discover(provider.id), 502, /exited with code 7/);
      rmSync(marker);
      expect((await discover(provider.id)).status).toBe(200);
      expect((await admin().get(`/admin/ai/tool-providers/${provider.id}`)).body.last_error).toBeNull();
    });

    it('gives the process only its env, PATH and the secret variable, and never shows the secret', async () => {
      const credential = await createCredential();
      const dump = join(scratch, 'env.json');
      const provider = await createProvider({
        env: { MCP_TEST_ENV_DUMP: dump, PLAIN_SETTING: 'visible' },
        credential_id: credential.id,
        secret_env_var: 'SEARCH_API_KEY',
      });
      expect((await discover(provider.id)).status).toBe(200);
      const env = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
      expect(Object.keys(env).sort()).toEqual([
        'MCP_TEST_ENV_DUMP',
        'PATH',
        'PLAIN_SETTING',
        'SEARCH_API_KEY',
      ]);
      expect(env.SEARCH_API_KEY).toBe(SECRET);
      const shown = await admin().get(`/admin/ai/tool-providers/${provider.id}`);
      expect(JSON.stringify(shown.body)).not.toContain(SECRET);
      const argvRows = await dbQuery<{ command_argv: string[]; env: unknown }>(
        'SELECT command_argv, env FROM tool_providers WHERE id = $1',
        [provider.id],
      );
      expect(JSON.stringify(argvRows)).not.toContain(SECRET);
    });

    it('keeps the secret out of last_error and the logs when a careless server quotes it', async () => {
      const warnings = jest.spyOn(Logger.prototype, 'warn');
      const credential = await createCredential();
      const provider = await createProvider({
        env: { MCP_TEST_LEAK_VAR: 'SEARCH_API_KEY' },
        credential_id: credential.id,
        secret_env_var: 'SEARCH_API_KEY',
      });
      const res = await discover(provider.id);
      expectProblem(res, 502, /REDACTED/);
      expect(res.body.detail).not.toContain(SECRET);
      const after = await admin().get(`/admin/ai/tool-providers/${provider.id}`);
      expect(after.body.last_error).toMatch(/backend refused key \[REDACTED\]/);
      const [row] = await dbQuery<{ last_error: string }>(
        'SELECT last_error FROM tool_providers WHERE id = $1',
        [provider.id],
      );
      expect(row.last_error).not.toContain(SECRET);
      const logged = warnings.mock.calls.map((call) => String(call[0]));
      warnings.mockRestore();
      // The stderr tail is logged, with the secret redacted.
      expect(
        logged.some((line) => line.includes(provider.id) && line.includes('debug: using key [REDACTED]')),
      ).toBe(true);
      expect(logged.filter((line) => line.includes(SECRET))).toEqual([]);
    });

    it('refuses to discover with an inactive or incomplete credential (400)', async () => {
      const credential = await createCredential();
      const provider = await createProvider({
        credential_id: credential.id,
        secret_env_var: 'SEARCH_API_KEY',
      });
      await admin().patch(`/admin/credentials/${credential.id}`, { is_active: false });
      expectProblem(await discover(provider.id), 400, /inactive/);
      await admin().patch(`/admin/credentials/${credential.id}`, { is_active: true, secret: null });
      expectProblem(await discover(provider.id), 400, /no secret/);
    });
  });

  describe('space enablement', () => {
    it('lists every provider as disabled until enabled, and applies the availability rule', async () => {
      const target = await createSpace(t.http, editor);
      const provider = await createProvider();
      await discover(provider.id);
      const path = `/spaces/${target.slug}/ai/tool-providers/`;
      const before = (await as(editor).get(path)).body.find(
        (p: { provider_id: string }) => p.provider_id === provider.id,
      );
      expect(before).toEqual({
        provider_id: provider.id,
        slug: provider.slug,
        name: 'Test tools',
        description: '',
        provider_active: true,
        enabled: false,
        max_risk_level: 'read',
        allowed_tool_names: null,
        available_tools: [],
        updated_at: null,
      });
      const enabled = await as(editor).put(`${path}${provider.id}/enablement`, {
        enabled: true,
        max_risk_level: 'read',
      });
      expect(enabled.status).toBe(200);
      // write_note is not a read tool: never available.
      expect(enabled.body.available_tools).toEqual([
        `${provider.slug}.describe_space`,
        `${provider.slug}.web_search`,
      ]);

      const allowlisted = await as(editor).put(`${path}${provider.id}/enablement`, {
        enabled: true,
        allowed_tool_names: [`${provider.slug}.web_search`, 'write_note'],
      });
      expect(allowlisted.body.allowed_tool_names).toEqual(['web_search', 'write_note']);
      expect(allowlisted.body.available_tools).toEqual([`${provider.slug}.web_search`]);

      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, {
        tool_overrides: { web_search: { enabled: false } },
      });
      expect(
        (await as(editor).get(path)).body.find((p: { provider_id: string }) => p.provider_id === provider.id)
          .available_tools,
      ).toEqual([]);
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { tool_overrides: {} });
      await as(editor).put(`${path}${provider.id}/enablement`, { enabled: true, allowed_tool_names: null });
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { is_active: false });
      const inactive = (await as(editor).get(path)).body.find(
        (p: { provider_id: string }) => p.provider_id === provider.id,
      );
      expect(inactive).toMatchObject({ provider_active: false, enabled: true, available_tools: [] });
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { is_active: true });
      const disabled = await as(editor).put(`${path}${provider.id}/enablement`, { enabled: false });
      expect(disabled.body).toMatchObject({ enabled: false, available_tools: [] });
    });

    it('refuses non-read levels and unknown allowlisted names (400 naming them), 404 for an unknown provider', async () => {
      const provider = await createProvider();
      await discover(provider.id);
      const path = `/spaces/${space.slug}/ai/tool-providers/${provider.id}/enablement`;
      for (const level of ['write', 'admin', 5]) {
        expectProblem(
          await as(editor).put(path, { enabled: true, max_risk_level: level }),
          400,
          /max_risk_level/,
        );
      }
      const unknown = await as(editor).put(path, {
        enabled: true,
        allowed_tool_names: ['web_search', 'other-provider.web_search'],
      });
      expectProblem(unknown, 400, /other-provider\.web_search/);
      expectProblem(
        await as(editor).put(path, { enabled: true, allowed_tool_names: 'web_search' }),
        400,
        /allowed_tool_names/,
      );
      expectProblem(await as(editor).put(path, { enabled: 'yes' }), 422);
      expectProblem(
        await as(editor).put(`/spaces/${space.slug}/ai/tool-providers/${randomUUID()}/enablement`, {
          enabled: true,
        }),
        404,
      );
    });
  });

  describe('web_search capability', () => {
    it('reports no binding, binds a compatible available tool, and calls it on a warm session', async () => {
      const target = await createSpace(t.http, editor);
      const empty = await readiness(target);
      expect(empty).toMatchObject({ healthy: false, binding_id: null });
      expect(codes(empty.readiness_errors)).toEqual(['no_binding']);
      const service = t.app.get(WebSearchReadinessService);
      const caller = t.app.get(WebSearchCallService);
      await expect(service.requireReady(target.id)).rejects.toMatchObject({ status: 409 });

      const { provider, tool, binding } = await boundWebSearch(target);
      expect(binding).toMatchObject({
        healthy: true,
        readiness_errors: [],
        provider_tool_id: tool.id,
        provider_id: provider.id,
        namespaced_name: `${provider.slug}.web_search`,
      });
      const ready = await service.requireReady(target.id);
      expect(ready).toEqual({
        bindingId: binding.binding_id,
        providerId: provider.id,
        providerToolId: tool.id,
        namespacedName: `${provider.slug}.web_search`,
      });
      const first = (await caller.call(ready, { query: 'governance', max_results: 2 })) as {
        results: unknown[];
        server_pid: number;
      };
      expect(first.results).toHaveLength(2);
      const second = (await caller.call(ready, { query: 'text please', max_results: 3 })) as typeof first;
      expect(second.results).toHaveLength(3);
      expect(second.server_pid).toBe(first.server_pid);

      // Any provider change starts a new session.
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { description: 'changed' });
      const third = (await caller.call(await service.requireReady(target.id), {
        query: 'again',
        max_results: 1,
      })) as typeof first;
      expect(third.server_pid).not.toBe(first.server_pid);
    });

    it('answers 502 for a tool error, an oversized answer and a timeout, and recovers after', async () => {
      const target = await createSpace(t.http, editor);
      await boundWebSearch(target);
      const service = t.app.get(WebSearchReadinessService);
      const caller = t.app.get(WebSearchCallService);
      const ready = await service.requireReady(target.id);
      await expect(caller.call(ready, { query: 'fail please', max_results: 1 })).rejects.toMatchObject({
        status: 502,
        detail: expect.stringMatching(/reported an error: The search backend refused/),
      });
      await expect(caller.call(ready, { query: 'flood please', max_results: 1 })).rejects.toMatchObject({
        status: 502,
        detail: expect.stringMatching(/more than 1024 KB/),
      });
      await expect(caller.call(ready, { query: 'hang please', max_results: 1 })).rejects.toMatchObject({
        status: 502,
        detail: expect.stringMatching(/did not answer within 3 s/),
      });
      const recovered = (await caller.call(ready, { query: 'recovered', max_results: 1 })) as {
        results: unknown[];
      };
      expect(recovered.results).toHaveLength(1);
    });

    it('refuses to bind a tool without the capability, an incompatible one, one not available here (400), an unknown one (404)', async () => {
      const target = await createSpace(t.http, editor);
      const path = `/spaces/${target.slug}/ai/tool-capabilities/web_search`;
      const plain = await createProvider();
      await discover(plain.id);
      await as(editor).put(`/spaces/${target.slug}/ai/tool-providers/${plain.id}/enablement`, {
        enabled: true,
      });
      const plainTool = (await tools(plain.id)).find((x) => x.tool_name === 'web_search')!;
      expectProblem(
        await as(editor).put(path, { provider_tool_id: plainTool.id }),
        400,
        /capability_id web_search/,
      );

      const loose = await createProvider({
        command_argv: ['node', `${MCP}/noncompliant-server.mjs`],
        tool_overrides: WEB_SEARCH_OVERRIDE,
      });
      await discover(loose.id);
      await as(editor).put(`/spaces/${target.slug}/ai/tool-providers/${loose.id}/enablement`, {
        enabled: true,
      });
      const [looseTool] = await tools(loose.id);
      expectProblem(
        await as(editor).put(path, { provider_tool_id: looseTool.id }),
        400,
        /not web_search compatible/,
      );

      const elsewhere = await createProvider({ tool_overrides: WEB_SEARCH_OVERRIDE });
      await discover(elsewhere.id);
      const elsewhereTool = (await tools(elsewhere.id)).find((x) => x.tool_name === 'web_search')!;
      expectProblem(
        await as(editor).put(path, { provider_tool_id: elsewhereTool.id }),
        400,
        /not available in this space/,
      );
      expectProblem(await as(editor).put(path, { provider_tool_id: randomUUID() }), 404);
      expectProblem(await as(editor).delete(path), 404);
    });

    it('names every reason it fails closed', async () => {
      const target = await createSpace(t.http, editor);
      const credential = await createCredential();
      const marker = join(scratch, `probe-${randomUUID()}`);
      const { provider } = await boundWebSearch(target, {
        credential_id: credential.id,
        secret_env_var: 'SEARCH_API_KEY',
        env: { MCP_TEST_FAIL_FILE: marker },
      });
      const service = t.app.get(WebSearchReadinessService);
      expect(await readiness(target)).toMatchObject({ healthy: true, readiness_errors: [] });
      const providerPath = `/admin/ai/tool-providers/${provider.id}`;
      const expectReasons = async (expected: string[]) => {
        const state = await readiness(target);
        expect(state.healthy).toBe(false);
        expect(codes(state.readiness_errors)).toEqual(expected);
        await expect(service.requireReady(target.id)).rejects.toMatchObject({
          status: 409,
          detail: expect.stringContaining(expected[0]),
        });
      };

      writeFileSync(marker, '');
      await expectReasons(['health_probe_failed']);
      rmSync(marker);
      expect((await readiness(target)).healthy).toBe(true);

      await admin().patch(`/admin/credentials/${credential.id}`, { is_active: false });
      await expectReasons(['credential_inactive']);
      await admin().patch(`/admin/credentials/${credential.id}`, { is_active: true, secret: null });
      await expectReasons(['credential_incomplete']);
      await admin().patch(`/admin/credentials/${credential.id}`, { secret: SECRET });
      expect((await readiness(target)).healthy).toBe(true);

      await admin().patch(providerPath, { is_active: false });
      await expectReasons(['provider_inactive', 'tool_unavailable']);
      await admin().patch(providerPath, { is_active: true });

      await admin().patch(providerPath, { command_argv: ['verity-missing-binary', TOOL_SERVER] });
      await expectReasons(['missing_executable']);
      expectProblem(await discover(provider.id), 502);
      await expectReasons(['missing_executable', 'discovery_failed']);
      await admin().patch(providerPath, { command_argv: ['node', TOOL_SERVER] });
      await expectReasons(['discovery_failed']);
      expect((await discover(provider.id)).status).toBe(200);
      expect((await readiness(target)).healthy).toBe(true);

      await admin().patch(providerPath, {
        tool_overrides: { web_search: { capability_id: 'web_search', requires_confirmation: true } },
      });
      await expectReasons(['incompatible_schema']);
      await admin().patch(providerPath, { tool_overrides: WEB_SEARCH_OVERRIDE });

      await as(editor).put(`/spaces/${target.slug}/ai/tool-providers/${provider.id}/enablement`, {
        enabled: false,
      });
      await expectReasons(['tool_unavailable']);
      await as(editor).put(`/spaces/${target.slug}/ai/tool-providers/${provider.id}/enablement`, {
        enabled: true,
      });
      expect((await readiness(target)).healthy).toBe(true);

      expect((await as(editor).delete(`/spaces/${target.slug}/ai/tool-capabilities/web_search`)).status).toBe(
        204,
      );
      await expectReasons(['no_binding']);
    });
  });

  describe('warm sessions', () => {
    const spec = (providerId: string) => ({
      providerId,
      argv: ['node', TOOL_SERVER],
      cwd: null,
      env: {},
      secret: null,
    });
    const pidOf = async (session: McpProcess) =>
      (
        (await session.callTool('web_search', { query: 'which process' }, 3000)).structuredContent as {
          server_pid: number;
        }
      ).server_pid;

    it('shares one process between concurrent callers, stops it when idle, and starts another on the next use', async () => {
      const config = t.app.get<AppConfig>(APP_CONFIG);
      const pool = new McpSessionPool({
        ...config,
        toolProviders: { ...config.toolProviders, sessionIdleMs: 1000 },
      });
      try {
        const providerId = randomUUID();
        const sessions = await Promise.all(
          Array.from({ length: 5 }, () => pool.session(spec(providerId), 4000)),
        );
        expect(new Set(sessions).size).toBe(1);
        const first = await pidOf(sessions[0]);
        await eventually('the idle session to stop', () => !sessions[0].alive, 10_000);
        const next = await pool.session(spec(providerId), 4000);
        expect(await pidOf(next)).not.toBe(first);
        // Another version of the settings gets its own process.
        const changed = await pool.session({ ...spec(providerId), env: { PLAIN_SETTING: 'x' } }, 4000);
        expect(changed).not.toBe(next);
        expect(next.alive).toBe(false);
      } finally {
        await pool.onModuleDestroy();
      }
    });
  });

  describe('output cap', () => {
    it('counts output per request: repeated tool listings on one warm process never add up to the cap', async () => {
      const config = t.app.get<AppConfig>(APP_CONFIG);
      const cap = 64 * 1024;
      const server = new McpProcess(
        {
          providerId: randomUUID(),
          argv: ['node', TOOL_SERVER],
          cwd: null,
          env: { MCP_TEST_TOOL_COUNT: '150', MCP_TEST_PAGE_SIZE: '500' },
          secret: null,
        },
        { outputCapBytes: cap },
        { path: config.toolProviders.path, allowPrivateNetworkTargets: false },
      );
      try {
        await server.open(4000);
        let listed = 0;
        // Each listing is well under the cap; together they are several times over it.
        for (let probe = 0; probe < 8; probe++) {
          const tools = await server.listAllTools(4000);
          expect(tools).toHaveLength(153);
          listed += JSON.stringify(tools).length;
        }
        expect(listed).toBeGreaterThan(3 * cap);
        expect(server.alive).toBe(true);
        expect((await server.callTool('web_search', { query: 'still warm' }, 3000)).isError).toBeFalsy();
        // One request over the cap still stops it.
        await expect(server.callTool('web_search', { query: 'flood please' }, 3000)).rejects.toMatchObject({
          status: 502,
          detail: expect.stringMatching(/more than 64 KB/),
        });
        expect(server.alive).toBe(false);
      } finally {
        await server.close();
      }
    });
  });

  describe('the private-network switch', () => {
    it("passes ALLOW_PRIVATE_NETWORK_TARGETS=true to the process only when the server's configuration has it", async () => {
      const config = t.app.get<AppConfig>(APP_CONFIG);
      for (const allow of [true, false]) {
        const pool = new McpSessionPool({ ...config, allowPrivateNetworkTargets: allow });
        const dump = join(scratch, `switch-${allow}.json`);
        try {
          await pool.session(
            {
              providerId: randomUUID(),
              argv: ['node', TOOL_SERVER],
              cwd: null,
              env: { MCP_TEST_ENV_DUMP: dump },
              secret: null,
            },
            4000,
          );
          const env = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
          expect(Object.keys(env).sort()).toEqual(
            allow
              ? ['ALLOW_PRIVATE_NETWORK_TARGETS', 'MCP_TEST_ENV_DUMP', 'PATH']
              : ['MCP_TEST_ENV_DUMP', 'PATH'],
          );
          if (allow) expect(env.ALLOW_PRIVATE_NETWORK_TARGETS).toBe('true');
        } finally {
          await pool.onModuleDestroy();
        }
      }
    });
  });

  describe('external-research grants', () => {
    const scopeFor = (userId: string, spaceId: string, bindingId: string, providerId: string) => ({
      userId,
      spaceId,
      definitionId: null,
      rootTaskId: randomUUID(),
      bindingId,
      providerId,
    });
    const revokedAt = async (scope: { rootTaskId: string }) =>
      (
        await dbQuery<{ revoked_at: Date | null }>(
          'SELECT revoked_at FROM tool_grants WHERE root_task_id = $1',
          [scope.rootTaskId],
        )
      )[0].revoked_at;

    it('finds an active grant for its exact scope only, not once expired', async () => {
      const grants = t.app.get(ToolGrantsService);
      const target = await createSpace(t.http, editor);
      const { provider, binding } = await boundWebSearch(target);
      const scope = scopeFor(editor.id, target.id, binding.binding_id, provider.id);
      const consentId = randomUUID();
      expect(await grants.findActive(scope)).toBeNull();
      await grants.grant(t.app.get(DataSource).manager, scope, consentId, new Date(Date.now() + 60_000));
      expect(await grants.findActive(scope)).toEqual({
        id: expect.any(String),
        consentId,
        expiresAt: expect.any(Date),
      });
      expect(await grants.findActive({ ...scope, definitionId: randomUUID() })).toBeNull();
      expect(await grants.findActive({ ...scope, userId: viewer.id })).toBeNull();
      const expired = { ...scope, rootTaskId: randomUUID() };
      await grants.grant(t.app.get(DataSource).manager, expired, randomUUID(), new Date(Date.now() - 1000));
      expect(await grants.findActive(expired)).toBeNull();
      const withDefinition = { ...scope, rootTaskId: randomUUID(), definitionId: randomUUID() };
      await grants.grant(
        t.app.get(DataSource).manager,
        withDefinition,
        randomUUID(),
        new Date(Date.now() + 60_000),
      );
      expect(await grants.findActive(withDefinition)).not.toBeNull();
    });

    it("revokes a binding's grants when it is replaced or deleted", async () => {
      const grants = t.app.get(ToolGrantsService);
      const target = await createSpace(t.http, editor);
      const first = await boundWebSearch(target);
      const scope = scopeFor(editor.id, target.id, first.binding.binding_id, first.provider.id);
      await grants.grant(t.app.get(DataSource).manager, scope, randomUUID(), new Date(Date.now() + 60_000));

      // Binding the same tool again keeps the binding and its grants.
      const again = await as(editor).put(`/spaces/${target.slug}/ai/tool-capabilities/web_search`, {
        provider_tool_id: first.tool.id,
      });
      expect(again.body.binding_id).toBe(first.binding.binding_id);
      expect(await grants.findActive(scope)).not.toBeNull();

      const second = await boundWebSearch(target);
      expect(second.binding.binding_id).not.toBe(first.binding.binding_id);
      expect(await grants.findActive(scope)).toBeNull();
      expect(await revokedAt(scope)).not.toBeNull();

      const secondScope = scopeFor(editor.id, target.id, second.binding.binding_id, second.provider.id);
      await grants.grant(
        t.app.get(DataSource).manager,
        secondScope,
        randomUUID(),
        new Date(Date.now() + 60_000),
      );
      expect((await as(editor).delete(`/spaces/${target.slug}/ai/tool-capabilities/web_search`)).status).toBe(
        204,
      );
      expect(await grants.findActive(secondScope)).toBeNull();
      expect(await revokedAt(secondScope)).not.toBeNull();
    });

    it("revokes a provider's grants and removes its tools, enablements and bindings when it is deleted", async () => {
      const grants = t.app.get(ToolGrantsService);
      const target = await createSpace(t.http, editor);
      const { provider, binding } = await boundWebSearch(target);
      const scope = scopeFor(editor.id, target.id, binding.binding_id, provider.id);
      await grants.grant(t.app.get(DataSource).manager, scope, randomUUID(), new Date(Date.now() + 60_000));
      expect((await admin().delete(`/admin/ai/tool-providers/${provider.id}`)).status).toBe(204);
      expect(await grants.findActive(scope)).toBeNull();
      expect(await revokedAt(scope)).not.toBeNull();
      const left = await dbQuery<{ n: number }>(
        `SELECT (SELECT count(*) FROM tool_provider_tools WHERE provider_id = $1)
              + (SELECT count(*) FROM space_tool_enablements WHERE provider_id = $1)
              + (SELECT count(*) FROM space_capability_bindings WHERE provider_id = $1) AS n`,
        [provider.id],
      );
      expect(Number(left[0].n)).toBe(0);
      expect(codes((await readiness(target)).readiness_errors)).toEqual(['no_binding']);
      expectProblem(await admin().delete(`/admin/ai/tool-providers/${provider.id}`), 404);
    });

    it('revokes the grants of a binding whose tool disappears at rediscovery', async () => {
      const grants = t.app.get(ToolGrantsService);
      const target = await createSpace(t.http, editor);
      const { provider, binding } = await boundWebSearch(target);
      const scope = scopeFor(editor.id, target.id, binding.binding_id, provider.id);
      await grants.grant(t.app.get(DataSource).manager, scope, randomUUID(), new Date(Date.now() + 60_000));
      await admin().patch(`/admin/ai/tool-providers/${provider.id}`, { env: { MCP_TEST_TOOLSET: 'bare' } });
      expect((await discover(provider.id)).body).toEqual({
        tools_added: 0,
        tools_updated: 0,
        tools_removed: 2,
        tool_count: 1,
      });
      expect(await grants.findActive(scope)).toBeNull();
      expect(await revokedAt(scope)).not.toBeNull();
      expect(codes((await readiness(target)).readiness_errors)).toEqual(['no_binding']);
    });
  });
});
