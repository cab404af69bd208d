import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../../config/app.config';
import type { CredentialsService } from './credentials.service';
import { ProviderRuntime, RuntimeProvider } from './provider-runtime.service';

describe('ProviderRuntime executable lookups before calls', () => {
  let dir: string;
  let tool: string;
  let now: number;
  let runtime: ProviderRuntime;
  const provider: RuntimeProvider = {
    id: 'provider-1',
    isActive: true,
    commandArgv: ['verity-fake-tool'],
    cwd: null,
    env: {},
    secretEnvVar: null,
    credentialId: null,
  };
  const missing = async () =>
    (await runtime.prepare(provider, {} as EntityManager, 'cached', null)).problems.some(
      (p) => p.code === 'missing_executable',
    );

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'verity-runtime-'));
    tool = join(dir, 'verity-fake-tool');
    writeFileSync(tool, '#!/bin/sh\n');
    chmodSync(tool, 0o755);
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const config = { toolProviders: { path: dir } } as AppConfig;
    runtime = new ProviderRuntime(config, {} as CredentialsService);
  });

  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets a lookup that found the executable stand for 10 s, never longer', async () => {
    expect(await missing()).toBe(false);
    rmSync(tool);
    now += 5_000;
    expect(await missing()).toBe(false);
    now += 5_000;
    expect(await missing()).toBe(true);
  });

  it('renews a lookup past 6 s in the background, so a removed executable shows before the 10 s are out', async () => {
    expect(await missing()).toBe(false);
    rmSync(tool);
    now += 7_000;
    // Still vouched for, but this call started a renewal that will not find it.
    expect(await missing()).toBe(false);
    const deadline = performance.now() + 5_000;
    while (!(await missing())) {
      if (performance.now() > deadline) throw new Error('the background lookup never replaced the old one');
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it('looks up again at once after a lookup that did not find it, and in fresh mode always', async () => {
    rmSync(tool);
    expect(await missing()).toBe(true);
    writeFileSync(tool, '#!/bin/sh\n');
    chmodSync(tool, 0o755);
    expect(await missing()).toBe(false);
    rmSync(tool);
    const fresh = await runtime.prepare(provider, {} as EntityManager, 'fresh', null);
    expect(fresh.problems.map((p) => p.code)).toEqual(['missing_executable']);
  });
});
