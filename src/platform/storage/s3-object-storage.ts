import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config/app.config';
import {
  assertObjectKey,
  ObjectNotFound,
  ObjectStorage,
  OpenedObject,
  PresignOptions,
  PutOptions,
} from './object-storage';

// S3's smallest multipart part. With one part in flight, an upload holds at
// most about two parts in memory, whatever the file's size.
const PART_SIZE = 5 * 1024 * 1024;

function isMissing(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return error instanceof NoSuchKey || error instanceof NotFound || status === 404;
}

/** Objects in a bucket of AWS S3 or any S3-compatible store; downloads by presigned GET URLs. */
export class S3ObjectStorage extends ObjectStorage {
  readonly backend = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly config: S3Config) {
    super();
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials ?? undefined,
      // Checksums only where S3 demands them: several S3-compatible stores reject the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    });
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<void> {
    assertObjectKey(key);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: key, Body: body, ContentType: options.contentType },
      partSize: PART_SIZE,
      queueSize: 1,
      // A failed multipart upload is aborted, so no parts are left behind.
      leavePartsOnError: false,
    });
    // The body may fail before the upload reads it to the end (a rejected file): stop uploading then.
    const failed = new Promise<never>((_resolve, reject) => body.once('error', reject));
    failed.catch(() => undefined);
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      // A small object may have been sent whole before the body failed at its very end.
      await this.delete(key).catch(() => undefined);
      throw error;
    }
  }

  async open(key: string): Promise<OpenedObject> {
    assertObjectKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }));
      return { stream: result.Body as Readable, size: result.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) throw new ObjectNotFound(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    assertObjectKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async presignedGetUrl(key: string, options: PresignOptions): Promise<string> {
    assertObjectKey(key);
    const seconds = Math.max(1, Math.round((options.expiresAt.getTime() - Date.now()) / 1000));
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.config.bucket,
        Key: key,
        // The store answers with the same safe headers the API would send.
        ResponseContentType: options.contentType,
        ResponseContentDisposition: options.contentDisposition,
      }),
      { expiresIn: seconds },
    );
  }

  onShutdown(): void {
    this.client.destroy();
  }
}
