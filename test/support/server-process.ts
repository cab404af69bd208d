import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT_EMAIL, ROOT_PASSWORD } from './database';

// The built server as an operator runs it (`npm start` runs dist/main.js).
export const ROOT = join(__dirname, '..', '..');
export const MAIN = join(ROOT, 'dist', 'main.js');

export interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  /** stdout and stderr together. */
  output: () => string;
  exited: Promise<number | null>;
  /** `http://127.0.0.1:<port>/api/v1.0` */
  base: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm start` builds when needed; suites that run dist/main.js do the same so they run from a fresh clone. */
export function buildIfNeeded(): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-needed.cjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
}

/**
 * Starts dist/main.js with only PATH and the given settings (and `nodeArgs` before the script);
 * killed with SIGKILL if the test process exits first.
 */
export async function runServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'log', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let output = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const orphanGuard = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  void exited.then(() => process.off('exit', orphanGuard));
  return {
    child,
    stdout: () => stdout,
    output: () => output,
    exited,
    base: `http://127.0.0.1:${port}/api/v1.0`,
  };
}

/** Polls a condition every 50 ms until it holds; fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitUntilHealthy(server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    if (
      await fetch(`${server.base}/health`).then(
        (res) => res.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`server not healthy in time:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGKILLs every server still running and waits for each to exit. */
export async function killServers(servers: readonly ServerProcess[]): Promise<void> {
  const running = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
  for (const server of running) server.child.kill('SIGKILL');
  await Promise.all(running.map((s) => new Promise((resolve) => s.child.once('exit', resolve))));
}

/** JSON request headers signed in as the seeded superadmin, for a server process (`base` ends in /api/v1.0). */
export async function rootJsonHeaders(base: string): Promise<Record<string, string>> {
  const token = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: ROOT_EMAIL, password: ROOT_PASSWORD }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  return { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
}
