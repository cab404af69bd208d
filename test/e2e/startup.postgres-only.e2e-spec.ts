import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneDatabase, databaseUrl, dropDatabase, TEMPLATE_EMPTY } from '../support/database';
import { buildIfNeeded, eventually, ROOT, runServer, waitUntilHealthy } from '../support/server-process';

// Issue 28 (time to ready): what a deployment does not use is not loaded at boot. The built server
// runs as an operator runs it (PostgreSQL, no S3, no SSO, no tool provider, no Redis) on an already
// migrated database, with two workers; every process reports the files it loaded when it exits.
const DB = `verity_startup_${process.pid}`;

/** The packages a process loaded, by their directory under node_modules. */
function packagesOf(files: string[]): Set<string> {
  const found = new Set<string>();
  for (const file of files) {
    const at = file.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [scope, name] = file.slice(at + '/node_modules/'.length).split('/');
    found.add(scope.startsWith('@') ? `${scope}/${name}` : scope);
  }
  return found;
}

const LOADED_ON_FIRST_USE = [
  '@electric-sql/pglite', // the embedded database, only without DATABASE_URL
  '@aws-sdk/client-s3', // S3 storage, only when configured
  '@node-saml/node-saml', // SAML sign-in
  'xml-crypto',
  'openid-client', // OIDC sign-in
  'node-forge', // a SAML provider's key pair, at its registration
  '@modelcontextprotocol/sdk', // a tool provider's process
  'zod',
  'file-type', // an upload
  'ioredis', // only with REDIS_URL
  'nodemailer', // only when a mail is sent over SMTP_URL
  'pino-pretty', // only with LOG_FORMAT=pretty (a terminal's default); a deployment writes JSON lines
];

describe('a cold start', () => {
  beforeAll(buildIfNeeded, 180_000);
  afterAll(() => dropDatabase(DB));

  it('loads neither the libraries of unused features in the workers nor Nest and TypeORM in the cluster primary', async () => {
    await cloneDatabase(TEMPLATE_EMPTY, DB);
    const dir = mkdtempSync(join(tmpdir(), 'verity-loaded-'));
    const server = await runServer(
      { DATABASE_URL: databaseUrl(DB), WEB_CONCURRENCY: '2', DATA_DIR: dir, LOADED_MODULES_DIR: dir },
      ['-r', join(ROOT, 'test', 'support', 'loaded-modules.cjs')],
    );
    try {
      await waitUntilHealthy(server, 150_000);
      // Both workers serve (a worker stopped while still booting would write no report).
      await eventually('both workers listening', () => server.output().includes('with 2 workers'), 150_000);
      expect((await fetch(`${server.base}/health`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);

    const reports = readdirSync(dir).filter((file) => file.endsWith('.json'));
    const read = (file: string) => packagesOf(JSON.parse(readFileSync(join(dir, file), 'utf8')) as string[]);
    const primary = reports.filter((file) => file.startsWith('primary-')).map(read);
    const workers = reports.filter((file) => file.startsWith('worker-')).map(read);
    expect(primary).toHaveLength(1);
    expect(workers).toHaveLength(2);

    // The primary migrates (here: finds the schema current) and supervises; its workers load the app.
    expect([...primary[0]].filter((name) => /^(@nestjs\/|typeorm$|rxjs$)/.test(name))).toEqual([]);
    for (const loaded of workers) {
      expect(loaded.has('@nestjs/core')).toBe(true);
      expect(LOADED_ON_FIRST_USE.filter((name) => loaded.has(name))).toEqual([]);
    }
    expect(primary[0].has('pino-pretty')).toBe(false);
  }, 240_000);
});
