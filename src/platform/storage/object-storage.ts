import type { Readable } from 'node:stream';

/** What a caller states about an object it stores. */
export interface PutOptions {
  contentType: string;
}

/** An object opened for reading. */
export interface OpenedObject {
  stream: Readable;
  size: number;
}

/** How a presigned download should answer. */
export interface PresignOptions {
  expiresAt: Date;
  contentType: string;
  /** A full `Content-Disposition` header value. */
  contentDisposition: string;
}

/** The object does not exist (any more). */
export class ObjectNotFound extends Error {
  override readonly name = 'ObjectNotFound';
  constructor(readonly key: string) {
    super(`No stored object under ${key}.`);
  }
}

/** Keys are relative paths of safe segments: no `..`, no leading slash, no backslashes. */
export const OBJECT_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function assertObjectKey(key: string): void {
  if (!OBJECT_KEY.test(key) || key.length > 500) throw new Error(`Invalid object key: ${key}`);
}

/**
 * Where uploaded files live: `local` (under DATA_DIR) or `s3` (any
 * S3-compatible store), chosen by STORAGE_BACKEND. Objects are written from
 * a stream and never buffered whole.
 */
export abstract class ObjectStorage {
  abstract readonly backend: 'local' | 's3';

  /**
   * Streams `body` into `key`. Resolves once the object is complete; when the
   * body fails (or the write does), rejects and leaves nothing under the key.
   */
  abstract put(key: string, body: Readable, options: PutOptions): Promise<void>;

  /** Throws ObjectNotFound when there is no such object. */
  abstract open(key: string): Promise<OpenedObject>;

  /** Idempotent: deleting a missing object succeeds. */
  abstract delete(key: string): Promise<void>;

  abstract exists(key: string): Promise<boolean>;

  /**
   * A URL that downloads the object directly until `expiresAt`, or null when
   * the backend has no such URLs (local: the API serves the file itself).
   */
  abstract presignedGetUrl(key: string, options: PresignOptions): Promise<string | null>;
}
