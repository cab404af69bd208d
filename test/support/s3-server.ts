import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const S3_BUCKET = 'verity-test';
/** s3rver's built-in account. */
export const S3_KEY = 'S3RVER';

export interface S3Server {
  endpoint: string;
  /** Where the server keeps the bucket's objects on disk. */
  directory: string;
  port: number;
  /** Stops the process (the stored objects stay on disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory. */
  restart(): Promise<void>;
}

function launch(directory: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [join(__dirname, 's3-server-process.cjs'), directory, String(port), S3_BUCKET],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`S3 server did not start: ${err}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/listening (\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`S3 server exited with ${code}: ${err}`));
    });
  });
}

/** Starts a real S3-compatible server (s3rver) as a separate process on a loopback port. */
export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'verity-s3-'));
  let { child, port } = await launch(directory, 0);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    port,
    stop,
    async restart() {
      await stop();
      ({ child, port } = await launch(directory, port));
    },
  };
}
