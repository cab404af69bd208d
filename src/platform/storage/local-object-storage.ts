import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertObjectKey, ObjectNotFound, ObjectStorage, OpenedObject, PutOptions } from './object-storage';

/**
 * Objects as files under `root` (DATA_DIR/objects). A write goes to a
 * temporary `.part` file that is renamed into place once complete, so a
 * reader never sees half an object and a failed write leaves nothing.
 */
export class LocalObjectStorage extends ObjectStorage {
  readonly backend = 'local' as const;

  constructor(private readonly root: string) {
    super();
  }

  async put(key: string, body: Readable, _options: PutOptions): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(body, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<OpenedObject> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      return { stream: createReadStream(path), size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFound(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  presignedGetUrl(): Promise<string | null> {
    return Promise.resolve(null);
  }

  private pathOf(key: string): string {
    assertObjectKey(key);
    return join(this.root, ...key.split('/'));
  }
}
