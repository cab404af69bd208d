import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, dropDatabase, withServer } from '../support/database';
import { buildIfNeeded, runServer as run, waitUntilHealthy } from '../support/server-process';

async function signIn(base: string, email: string): Promise<void> {
  const token = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: email, password: 'password-123' }),
  });
  expect(token.status).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const me = await fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${access_token}` } });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { email: string }).email).toBe(email);
}

/** Register, sign in, read /auth/me; answers the new account's email. */
async function roundTrip(base: string): Promise<string> {
  const email = `process-${Date.now()}@example.test`;
  const register = await fetch(`${base}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'password-123', first_name: 'Pro', last_name: 'Cess' }),
  });
  expect(register.status).toBe(201);
  await signIn(base, email);
  return email;
}

describe('the server process', () => {
  beforeAll(buildIfNeeded, 180_000);

  it('serves on the embedded database with nothing else configured, keeps data across restarts, and locks its data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'verity-process-'));
    const first = await run({ DATA_DIR: dataDir });
    let email: string;
    try {
      await waitUntilHealthy(first);
      const health = (await (await fetch(`${first.base}/health`)).json()) as { database: string };
      expect(health.database).toBe('embedded');
      email = await roundTrip(first.base);

      // A second process on the same data directory refuses to start, with a clear sentence.
      const second = await run({ DATA_DIR: dataDir });
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/is in use by process \d+/);
      expect(second.output()).toMatch(/DATABASE_URL/);
    } finally {
      first.child.kill('SIGTERM');
    }
    // SIGTERM: a clean exit that releases the lock.
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('Stopped');
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);

    const again = await run({ DATA_DIR: dataDir });
    try {
      await waitUntilHealthy(again);
      await signIn(again.base, email);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 120_000);

  it('uses PostgreSQL from DATABASE_URL and runs the migrations at start', async () => {
    const name = `verity_process_${process.pid}`;
    await withServer(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${name}`);
    });
    const server = await run({
      DATABASE_URL: databaseUrl(name),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-pg-')),
    });
    try {
      await waitUntilHealthy(server);
      const health = (await (await fetch(`${server.base}/health`)).json()) as { database: string };
      expect(health.database).toBe('postgresql');
      await roundTrip(server.base);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await dropDatabase(name);
    }
  }, 120_000);

  it('refuses to boot on a bad setting, naming the variable', async () => {
    const server = await run({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bad-')),
      RATE_LIMIT_ANON_TIER: 'gold',
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('RATE_LIMIT_ANON_TIER must be one of standard, premium, internal');
  }, 30_000);

  it('refuses several workers on the embedded database, which serves one process', async () => {
    const server = await run({ DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-bad-')), WEB_CONCURRENCY: '2' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('WEB_CONCURRENCY must be 1 on the embedded database');
  }, 30_000);
});
