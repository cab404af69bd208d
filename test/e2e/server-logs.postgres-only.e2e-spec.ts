import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneDatabase, dropDatabase, SERVER_URL, TEMPLATE_SEEDED } from '../support/database';
import {
  buildIfNeeded,
  eventually,
  runServer,
  ServerProcess,
  waitUntilHealthy,
} from '../support/server-process';

type Line = Record<string, unknown>;

function jsonLines(server: ServerProcess): Line[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

const dataDir = () => mkdtempSync(join(tmpdir(), 'verity-logs-'));

describe('the server logs (LOG_FORMAT=json)', () => {
  const database = `verity_logs_${process.pid}`;
  beforeAll(async () => {
    buildIfNeeded();
    await cloneDatabase(TEMPLATE_SEEDED, database);
  }, 180_000);
  afterAll(() => dropDatabase(database));

  it('writes one JSON object per line, an access line per request, and no secret anywhere', async () => {
    const secrets = {
      databasePassword: `db-pass-${randomUUID()}`,
      jwtSecret: `jwt-secret-${randomUUID()}-${randomUUID()}`,
      password: `Pa55-${randomUUID()}`,
      wrongPassword: `wrong-${randomUUID()}`,
    };
    // The local server trusts loopback: the password is accepted and unused, as a secret in the URL would be.
    const dbUrl = `${SERVER_URL.replace('postgres://postgres@', `postgres://postgres:${secrets.databasePassword}@`)}/${database}`;
    const server = await runServer({
      DATABASE_URL: dbUrl,
      DATA_DIR: dataDir(),
      JWT_SECRET: secrets.jwtSecret,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    });
    const email = `logs-${randomUUID().slice(0, 8)}@example.test`;
    const tokens: string[] = [];
    let userId: string;
    let slug: string;
    try {
      await waitUntilHealthy(server);
      const json = { 'content-type': 'application/json' };
      const register = await fetch(`${server.base}/auth/register`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email, password: secrets.password, first_name: 'Log', last_name: 'Reader' }),
      });
      expect(register.status).toBe(201);
      userId = ((await register.json()) as { id: string }).id;
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const refused = await fetch(`${server.base}/auth/token`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({ username: email, password: secrets.wrongPassword }),
      });
      expect(refused.status).toBe(401);
      const login = await fetch(`${server.base}/auth/token`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({ username: email, password: secrets.password }),
      });
      expect(login.status).toBe(200);
      const issued = (await login.json()) as { access_token: string; refresh_token: string };
      tokens.push(issued.access_token, issued.refresh_token);
      const auth = { authorization: `Bearer ${issued.access_token}` };
      const me = await fetch(`${server.base}/auth/me`, { headers: { ...auth, 'x-request-id': 'logs-me-1' } });
      expect(me.status).toBe(200);
      slug = `logs-${randomUUID().slice(0, 8)}`;
      const space = await fetch(`${server.base}/spaces`, {
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify({ name: 'Logs', slug }),
      });
      expect(space.status).toBe(201);
      const read = await fetch(`${server.base}/spaces/${slug}?probe=1`, {
        headers: { ...auth, 'x-request-id': 'logs-space-1' },
      });
      expect(read.status).toBe(200);
      const refresh = await fetch(`${server.base}/auth/refresh`, {
        method: 'POST',
        headers: { cookie: `verity_refresh=${issued.refresh_token}` },
      });
      tokens.push(((await refresh.json()) as { access_token?: string }).access_token ?? '');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);

    const lines = jsonLines(server);
    for (const line of lines) {
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          level: expect.any(String),
          msg: expect.any(String),
        }),
      );
    }
    expect(lines.some((line) => line.context === 'NestApplication')).toBe(true);
    expect(lines.some((line) => line.context === 'Verity' && line.msg === 'Stopped')).toBe(true);

    const access = (requestId: string) =>
      lines.find((line) => line.context === 'HTTP' && line.request_id === requestId);
    expect(access('logs-me-1')).toEqual({
      level: 'info',
      time: expect.any(String),
      // A worker's: the server runs WEB_CONCURRENCY workers (one per core) on PostgreSQL.
      pid: expect.any(Number),
      hostname: expect.any(String),
      context: 'HTTP',
      request_id: 'logs-me-1',
      user_id: userId!,
      method: 'GET',
      route: '/api/v1.0/auth/me',
      status: 200,
      duration_ms: expect.any(Number),
      msg: 'GET /api/v1.0/auth/me 200',
    });
    // The route template, never the raw path with its identifiers and query.
    expect(access('logs-space-1')).toEqual(
      expect.objectContaining({ route: '/api/v1.0/spaces/:slug', status: 200, user_id: userId! }),
    );
    const anonymous = lines.find(
      (line) => line.context === 'HTTP' && line.route === '/api/v1.0/auth/register',
    );
    expect(anonymous).toEqual(expect.objectContaining({ method: 'POST', status: 201 }));
    expect(anonymous).not.toHaveProperty('user_id');

    const output = server.output();
    expect(output).not.toContain(slug!);
    for (const secret of [...Object.values(secrets), ...tokens.filter((token) => token !== '')]) {
      expect(output).not.toContain(secret);
    }
  }, 120_000);

  it('accepts operator level names, writes pretty lines on request, and turns the access log off', async () => {
    const server = await runServer({
      DATABASE_URL: `${SERVER_URL}/${database}`,
      DATA_DIR: dataDir(),
      LOG_FORMAT: 'pretty',
      LOG_LEVEL: 'warn',
      ACCESS_LOG: 'false',
    });
    try {
      await waitUntilHealthy(server);
      expect((await fetch(`${server.base}/nothing-here`)).status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    // warn hides the info lines: startup, access, "Stopped".
    expect(server.stdout()).not.toMatch(/INFO|Serving on|\[HTTP\]|Stopped/);

    const verbose = await runServer({
      DATABASE_URL: `${SERVER_URL}/${database}`,
      DATA_DIR: dataDir(),
      LOG_FORMAT: 'pretty',
      LOG_LEVEL: 'debug',
      ACCESS_LOG: 'false',
    });
    try {
      await waitUntilHealthy(verbose);
      // With several workers the first one answers before the primary reports them all serving.
      await eventually('the serving line', async () => verbose.stdout().includes('Serving on'));
    } finally {
      verbose.child.kill('SIGTERM');
    }
    expect(await verbose.exited).toBe(0);
    expect(verbose.stdout()).toMatch(/INFO.*\[Verity\] Serving on http:\/\/127\.0\.0\.1:\d+\/api\/v1\.0/);
    expect(verbose.stdout()).not.toMatch(/^\{/m);
    expect(verbose.stdout()).not.toContain('[HTTP]');
  }, 120_000);

  it.each([
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, log, verbose',
    ],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be one of json, pretty'],
  ])(
    'refuses to boot on %o, naming the variable',
    async (env, sentence) => {
      const server = await runServer({ DATA_DIR: dataDir(), ...env });
      expect(await server.exited).toBe(1);
      expect(server.output()).toContain(sentence);
    },
    30_000,
  );
});
