import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Pool } from 'pg';
import { AppConfig, ConfigError, loadConfig } from './config/app.config';
import { AppLogger, logDestination } from './platform/logging/app-logger';
import type { EmbeddedPostgres } from './database/embedded-postgres';
import { migrateDatabase } from './database/migrate';
import { serveRateLimitCounters } from './platform/rate-limit/cluster-rate-limit.store';
import { superviseWorkers } from './platform/cluster/cluster-primary';
import { serveClusterMetrics } from './platform/metrics/cluster-metrics';

// Time to ready (issue 28): the cluster primary loads neither Nest nor TypeORM (its workers do, all
// at once), and a serving process loads the application only after its database is up and migrated.

const SHUTDOWN_GRACE_MS = 10_000;

function configOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** WEB_CONCURRENCY > 1: migrate once, then let the workers serve. */
async function runPrimary(config: AppConfig, appLogger: AppLogger): Promise<void> {
  const logger = { log: (message: string) => appLogger.log(message, 'Verity') };
  const applied = await migrateDatabase(config.databaseUrl!, { embedded: false });
  if (applied) logger.log(`Applied ${applied} migrations`);
  if (!config.redisUrl && config.rateLimitEnabled) {
    logger.log('Rate-limit counters are kept by the cluster primary and shared by its workers');
  }
  serveRateLimitCounters();
  serveClusterMetrics();
  superviseWorkers({
    logger: appLogger,
    workers: config.webConcurrency,
    shutdownGraceMs: SHUTDOWN_GRACE_MS,
    onServing: () =>
      logger.log(
        `Serving on http://${config.host}:${config.port}/api/v1.0 (docs at /api/v1.0/docs) with ` +
          `${config.webConcurrency} workers, up to ${config.databasePoolSize} database connections each`,
      ),
  });
}

/** One serving process: the only one, or a worker of the cluster (the primary migrated already). */
async function runServer(config: AppConfig, appLogger: AppLogger): Promise<void> {
  const { Logger } = await import('@nestjs/common');
  // Lines written before an app exists (the embedded database's start) use the same logger.
  Logger.overrideLogger(appLogger);
  const logger = new Logger('Verity');
  let embedded: EmbeddedPostgres | null = null;
  if (!config.databaseUrl) {
    // Loaded only here: a deployment on PostgreSQL never pays for the embedded database's module graph.
    const { DataDirectoryLockedError, EmbeddedPostgres } = await import('./database/embedded-postgres.js');
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
  if (cluster.isPrimary) await migrateDatabase(url, { embedded: !!embedded });
  // The application's module graph is loaded here, not at the top: the cluster primary never needs it.
  // One after the other: Node 20 fails to load the same ESM package (Nest) from two imports in flight.
  const { createApp } = await import('./app.factory.js');
  const { DataSource } = await import('typeorm');
  const app = await createApp({
    config,
    database: { url, poolSize: config.databasePoolSize },
    migrationsRun: false,
    embedded: !!embedded,
  });
  await app.listen(config.port, config.host);
  if (cluster.isPrimary) {
    logger.log(`Serving on http://${config.host}:${config.port}/api/v1.0 (docs at /api/v1.0/docs)`);
  }

  let stopping = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${reason}: finishing in-flight requests`);
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
    if (cluster.isPrimary) logger.log('Stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM received'));
  process.on('SIGINT', () => void shutdown('SIGINT received'));
  // A worker whose primary is gone (killed) has nobody to replace or stop it.
  if (cluster.isWorker) process.on('disconnect', () => void shutdown('Cluster primary gone'));
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = new AppLogger(config, await logDestination(config.logFormat));
  if (cluster.isPrimary && config.webConcurrency > 1) await runPrimary(config, logger);
  else await runServer(config, logger);
}

void main();
