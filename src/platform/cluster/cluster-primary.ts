import cluster, { Worker } from 'node:cluster';
import type { LoggerService } from '@nestjs/common';

export interface ClusterOptions {
  workers: number;
  /** How long workers get to finish in-flight work after SIGTERM before they are killed. */
  shutdownGraceMs: number;
  /** Called once, when every worker first listens. */
  onServing: () => void;
  /** The primary's logger (a LoggerService, not Nest's Logger: the primary does not load Nest). */
  logger: LoggerService;
}

const CONTEXT = 'Verity';

// A worker that dies before it ever listened this many times in a row means the
// deployment cannot serve (database down, port taken): stop instead of looping.
const MAX_FAILED_BOOTS = 3;

/**
 * The primary of a WEB_CONCURRENCY cluster: starts the workers (they share
 * the listening port), replaces one that dies, and on SIGTERM/SIGINT passes
 * the signal on and waits for every worker to finish gracefully.
 */
export function superviseWorkers({ workers, shutdownGraceMs, onServing, logger }: ClusterOptions): void {
  let served = false;
  const listening = new Set<number>();
  let failedBoots = 0;
  let stopping = false;

  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', () => {
      listening.add(worker.id);
      failedBoots = 0;
      if (listening.size === workers && !served) {
        served = true;
        onServing();
      }
    });
  };

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    const hadListened = listening.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.log('Stopped', CONTEXT);
        process.exit();
      }
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!hadListened && ++failedBoots >= MAX_FAILED_BOOTS) {
      logger.error(`Workers keep failing to start (last exit: ${how}); stopping.`, CONTEXT);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    logger.warn(`Worker ${worker.process.pid} exited (${how}); starting a replacement.`, CONTEXT);
    fork();
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: stopping ${Object.keys(cluster.workers ?? {}).length} workers`, CONTEXT);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    // Workers stop on their own within their grace period; this only catches a hung one.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    }, shutdownGraceMs * 2).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  for (let i = 0; i < workers; i++) fork();
}
