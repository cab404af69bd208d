import type { Repository } from 'typeorm';
import type { AppConfig } from '../../config/app.config';
import type { PreparedQueries } from '../../database/prepared-queries.runner';
import type { CredentialsService } from './credentials.service';
import type { CapabilityBinding } from './entities/capability-binding.entity';
import type { McpProcess } from './mcp-process';
import type { SpawnSpec } from './mcp-spawn';
import type { McpSessionPool } from './mcp-session.pool';
import type { ProviderRuntime } from './provider-runtime.service';
import type { BoundWebSearchRow } from './tool-providers.contract';
import { ProviderFailed } from './tool-providers.errors';
import { ToolProvidersQueries } from './tool-providers.queries';
import { WebSearchCallService } from './web-search-call.service';
import { WebSearchReadinessService } from './web-search-readiness.service';

const row: BoundWebSearchRow = {
  binding_id: 'binding-1',
  binding_created_at: new Date(0),
  tool_id: 'tool-1',
  tool_name: 'web_search',
  capability_id: 'web_search',
  capability_compatible: true,
  capability_validation_error: null,
  provider_id: 'provider-1',
  provider_slug: 'metasearch',
  provider_active: true,
  command_argv: ['node', 'adapter.js'],
  cwd: null,
  env: {},
  secret_env_var: null,
  credential_id: null,
  last_error: null,
  credential_found: false,
  credential_active: null,
  secret_sealed: null,
  available: true,
};

const spec: SpawnSpec = {
  providerId: 'provider-1',
  argv: ['node', 'adapter.js'],
  cwd: null,
  env: {},
  secret: null,
};

/** A promise with its resolver, to hold a probe open. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WebSearchReadinessService health probes before calls', () => {
  let now: number;
  let listed: Array<() => Promise<Array<{ name: string }>>>;
  let probes: number;
  let sessionsAsked: number;
  let callTool: jest.Mock;
  let service: WebSearchReadinessService;
  let caller: WebSearchCallService;

  /** Answers the next probes with these tool lists, in turn; then the web_search tool. */
  const nextProbes = (...answers: Array<() => Promise<Array<{ name: string }>>>) => listed.push(...answers);

  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    listed = [];
    probes = 0;
    sessionsAsked = 0;
    callTool = jest.fn();
    const session = {
      listAllTools: () => {
        probes++;
        return (listed.shift() ?? (async () => [{ name: 'web_search' }]))();
      },
      callTool,
      sanitize: (text: string) => text,
    } as unknown as McpProcess;
    const config = { toolProviders: { healthTimeoutMs: 1_000, callTimeoutMs: 1_000 } } as AppConfig;
    const runtime = { prepare: async () => ({ spec, problems: [] }) } as unknown as ProviderRuntime;
    const sessions = {
      session: async () => {
        sessionsAsked++;
        return session;
      },
    } as unknown as McpSessionPool;
    const bindings = { manager: {} } as Repository<CapabilityBinding>;
    service = new WebSearchReadinessService(
      config,
      bindings,
      {} as PreparedQueries,
      runtime,
      sessions,
      {} as CredentialsService,
      new ToolProvidersQueries(),
    );
    caller = new WebSearchCallService(config, bindings, runtime, sessions, {} as CredentialsService, service);
  });

  afterEach(() => jest.restoreAllMocks());

  it('without a probe, starts and contacts nothing and still refuses what it can see', async () => {
    await expect(service.requireReadyFrom(row, { probe: false })).resolves.toMatchObject({
      bindingId: 'binding-1',
    });
    await expect(
      service.requireReadyFrom({ ...row, available: false, last_error: 'boom' }, { probe: false }),
    ).rejects.toMatchObject({
      status: 409,
      readinessErrors: [
        expect.stringMatching(/^discovery_failed/),
        expect.stringMatching(/^tool_unavailable/),
      ],
    });
    expect(probes).toBe(0);
    expect(sessionsAsked).toBe(0);
  });

  it('lets a passed probe stand for 30 s, renewing it once in the background after 20 s', async () => {
    await service.requireReadyFrom(row);
    expect(probes).toBe(1);
    now += 19_000;
    await service.requireReadyFrom(row);
    expect(probes).toBe(1);
    now += 2_000;
    const held = deferred<Array<{ name: string }>>();
    nextProbes(() => held.promise);
    await service.requireReadyFrom(row);
    await service.requireReadyFrom(row);
    // One renewal under way; the calls did not wait for it.
    expect(probes).toBe(2);
    held.resolve([{ name: 'web_search' }]);
    await settle();
    // The renewal started at 21 s: it stands until 51 s.
    now += 29_000;
    await service.requireReadyFrom(row);
    expect(probes).toBe(3);
  });

  it('probes inline once the last pass is 30 s old', async () => {
    await service.requireReadyFrom(row);
    now += 30_000;
    nextProbes(async () => []);
    await expect(service.requireReadyFrom(row)).rejects.toMatchObject({
      status: 409,
      readinessErrors: ['health_probe_failed: the provider no longer lists web_search'],
    });
    expect(probes).toBe(2);
  });

  it('reports a renewal that fails on the next call, probing inline', async () => {
    await service.requireReadyFrom(row);
    now += 25_000;
    nextProbes(async () => {
      throw new ProviderFailed('the process exited');
    });
    await service.requireReadyFrom(row);
    await settle();
    nextProbes(async () => {
      throw new ProviderFailed('the process exited');
    });
    await expect(service.requireReadyFrom(row)).rejects.toMatchObject({
      readinessErrors: ['health_probe_failed: the process exited'],
    });
    expect(probes).toBe(3);
  });

  it('discards a renewal that passes after a call failed meanwhile', async () => {
    await service.requireReadyFrom(row);
    now += 25_000;
    const held = deferred<Array<{ name: string }>>();
    nextProbes(() => held.promise);
    const ready = await service.requireReadyFrom(row);
    callTool.mockRejectedValueOnce(new ProviderFailed('the tool call timed out'));
    await expect(caller.call(ready, { query: 'q', max_results: 1 })).rejects.toBeInstanceOf(ProviderFailed);
    held.resolve([{ name: 'web_search' }]);
    await settle();
    // The failed call forgot the passed probe; the renewal that began before it does not restore it.
    await service.requireReadyFrom(row);
    expect(probes).toBe(3);
  });
});
