import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createApp } from './app.factory';
import { AppConfig, ConfigError, loadConfig } from './config/app.config';
import { AppLogger } from './platform/logging/app-logger';
import { DataDirectoryLockedError, EmbeddedPostgres } from './database/embedded-postgres';

const SHUTDOWN_GRACE_MS = 10_000;

async function bootstrap(): Promise<void> {
  const logger = new Logger('Verity');
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  // Lines written before the app exists (the embedded database's start) go through the same logger.
  Logger.overrideLogger(new AppLogger(config));

  let embedded: EmbeddedPostgres | null = null;
  if (!config.databaseUrl) {
    try {
      embedded = await EmbeddedPostgres.start(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirectoryLockedError) {
        console.error(error.message);
        process.exit(1);
      }
      throw error;
    }
  }
  const url = config.databaseUrl ?? embedded!.url;
  const app = await createApp({ config, database: { url, poolSize: config.databasePoolSize } });
  await app.listen(config.port, config.host);
  logger.log(`Serving on http://${config.host}:${config.port}/api/v1.0 (docs at /api/v1.0/docs)`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing in-flight requests`);
    const server = app.getHttpServer();
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    // Stop accepting, let requests in flight finish, then close the database.
    await new Promise<void>((done) => {
      server.close(() => done());
      server.closeIdleConnections();
    });
    // A handler whose client hung up is still running: wait until no query holds a connection.
    const pool = (app.get(DataSource).driver as unknown as { master: Pool }).master;
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    while ((pool.totalCount > pool.idleCount || pool.waitingCount > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await app.close();
    await embedded?.stop();
    logger.log('Stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

void bootstrap();
