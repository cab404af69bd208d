import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app.config';
import type { HostResolver } from '../../src/platform/outbound-http/host-resolver';
import { databaseUrl, workerDatabase } from './database';
import { checkedAgent } from './openapi-contract';

export interface TestApp {
  app: NestExpressApplication;
  /** Every answer is checked against the app's OpenAPI document (see openapi-contract.ts). */
  http: TestAgent;
  /** Base URL of the listening server, for peers that call back. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Environment variables as an operator would set them. */
  env?: Record<string, string>;
  /** Defaults to this jest worker's clone of the seeded template. */
  databaseUrl?: string;
  /** Replaces DNS for outbound targets: names the suite resolves to chosen addresses. */
  hostResolver?: HostResolver;
}

/** The database this jest worker uses (see global-setup). */
export function workerDatabaseUrl(): string {
  return process.env.E2E_DATABASE_URL ?? databaseUrl(workerDatabase(process.env.JEST_WORKER_ID ?? '1'));
}

export const embeddedRun = process.env.E2E_EMBEDDED === '1';

/** Boots the real application over HTTP on a loopback port. */
export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-e2e-')),
    LOG_LEVEL: 'error',
    PUBLIC_BASE_URL: 'http://app.verity.test',
    // Suites make many requests from one address and user in a burst: the
    // roomiest tier keeps them clear of 429s. Rate-limit suites set their own.
    RATE_LIMIT_USER_TIER: 'internal',
    RATE_LIMIT_ANON_TIER: 'internal',
    ...options.env,
  });
  const url = options.databaseUrl ?? workerDatabaseUrl();
  const app = await createApp({
    config,
    database: { url, poolSize: embeddedRun ? 1 : 4 },
    migrationsRun: false,
    embedded: embeddedRun,
    hostResolver: options.hostResolver,
  });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    app,
    http: checkedAgent(app.getHttpServer(), baseUrl),
    baseUrl,
    close: () => app.close(),
  };
}
