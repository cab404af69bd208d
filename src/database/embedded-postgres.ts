import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

export class DataDirectoryLockedError extends Error {
  override readonly name = 'DataDirectoryLockedError';
}

/**
 * PostgreSQL compiled to WASM (PGlite), served over the wire protocol on a
 * loopback port so that TypeORM's ordinary `pg` driver reaches it. It runs one
 * session: the pool in front of it must hold exactly one connection.
 */
export class EmbeddedPostgres {
  private readonly logger = new Logger(EmbeddedPostgres.name);
  private lockPath: string | null = null;

  private constructor(
    private readonly db: { close(): Promise<void> },
    private readonly server: { stop(): Promise<void> },
    readonly url: string,
  ) {}

  /**
   * Starts PGlite on `dataDir/pglite` (or in memory for `memory://`). Two
   * processes on one data directory silently lose writes, so an exclusive
   * lock file guards it.
   */
  static async start(dataDir: string | 'memory://'): Promise<EmbeddedPostgres> {
    let lockPath: string | null = null;
    let storage = 'memory://';
    if (dataDir !== 'memory://') {
      mkdirSync(dataDir, { recursive: true });
      lockPath = takeLock(join(dataDir, 'pglite.lock'));
      storage = join(dataDir, 'pglite');
      mkdirSync(storage, { recursive: true });
    }
    try {
      const { PGlite } = await import('@electric-sql/pglite');
      const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
      // pg_trgm backs the catalog's substring search index; pgvector the semantic index (HNSW).
      const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
      const { vector } = await import('@electric-sql/pglite-pgvector');
      const db = await PGlite.create(storage, { extensions: { pg_trgm, vector } });
      // Headroom above the pool of one: a closed client frees its slot asynchronously.
      const server = new PGLiteSocketServer({
        db: db as never,
        host: '127.0.0.1',
        port: 0,
        maxConnections: 4,
      });
      await server.start();
      const embedded = new EmbeddedPostgres(
        db,
        server,
        `postgres://postgres@${server.getServerConn()}/postgres`,
      );
      embedded.lockPath = lockPath;
      embedded.logger.log(`Embedded PostgreSQL (PGlite) serving ${storage} on ${server.getServerConn()}`);
      return embedded;
    } catch (error) {
      if (lockPath) rmSync(lockPath, { force: true });
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    if (this.lockPath) rmSync(this.lockPath, { force: true });
    this.lockPath = null;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function takeLock(path: string): string {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirectoryLockedError(
          `The embedded database in ${path.replace(/\/pglite\.lock$/, '')} is in use by process ${holder}. ` +
            'Stop that process, point DATA_DIR at another directory, or set DATABASE_URL to use a PostgreSQL server.',
        );
      }
      // The lock was left behind by a process that is gone: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new DataDirectoryLockedError(`Could not take the lock ${path}.`);
}
