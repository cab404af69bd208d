import { createParamDecorator, ExecutionContext, Logger } from '@nestjs/common';
import busboy from 'busboy';
import type { Request } from 'express';
import { Readable, Transform } from 'node:stream';
import { DomainError, ValidationFailed } from '../../common/errors/domain-error';
import { ObjectStorage } from '../../platform/storage/object-storage';
import {
  AttachmentTooLarge,
  InvalidAttachmentFile,
  MAX_ATTACHMENT_BYTES,
  MultipartRequired,
  StorageUnavailable,
} from './attachments.errors';
import { sanitizeFileName } from './file-names';
import { ContentInspector, HEAD_BYTES, Inspection } from './inspection/content-inspector';

/** The request of an upload route, not read yet: the service checks the parent and permissions first. */
export class MultipartUpload {
  constructor(readonly request: Request) {}
}

/** Hands the unread multipart request to the service (no interceptor buffers it). */
export const UploadedForm = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    new MultipartUpload(context.switchToHttp().getRequest<Request>()),
);

export interface ReceivedFile extends Inspection {
  fileName: string;
  /** The text fields of the form, each one of those allowed. */
  fields: Record<string, string>;
}

// Room for the multipart framing and the small text fields around a file at the limit.
const FORM_OVERHEAD = 64 * 1024;
// After a refusal the rest of the body is read and dropped, so that the client can finish sending
// and read the answer; a client that keeps sending past this much more is cut off.
const DRAIN_LIMIT = MAX_ATTACHMENT_BYTES;

const logger = new Logger('AttachmentUpload');

class ClientAborted extends Error {
  override readonly name = 'ClientAborted';
}

/** Reads the first `bytes` of a stream (or all of it, when shorter) and leaves it paused. */
function readHead(stream: Readable, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytes) {
        stream.pause();
        cleanup();
        resolve({ head: Buffer.concat(chunks), ended: false });
      }
    };
    const onEnd = () => {
      cleanup();
      resolve({ head: Buffer.concat(chunks), ended: true });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/**
 * Streams the `file` part of a multipart upload into the object storage
 * under `key`, inspecting it on the way: the head decides the kind before
 * anything is stored, every later byte goes through that kind's checks, and
 * more than 50 MB stops the upload (413). Nothing is buffered beyond the
 * head and the stream's own buffers. Resolves once the object is complete
 * and the whole form was read; on any refusal nothing is left under `key`.
 */
export function receiveUpload(
  upload: MultipartUpload,
  storage: ObjectStorage,
  key: string,
  allowedFields: readonly string[],
): Promise<ReceivedFile> {
  const req = upload.request;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_ATTACHMENT_BYTES + FORM_OVERHEAD) {
    // Known too large from the header: refuse without reading, and close the connection.
    return Promise.reject(new AttachmentTooLarge({ Connection: 'close' }));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        // busboy signals "limit" on reaching this size: one byte more than the largest file allowed.
        fileSize: MAX_ATTACHMENT_BYTES + 1,
        files: 1,
        fields: allowedFields.length,
        fieldSize: 1024,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    return Promise.reject(new MultipartRequired());
  }

  return new Promise<ReceivedFile>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let failure: Error | null = null;
    let stored: Promise<(Inspection & { fileName: string }) | null> | null = null;
    let abortFile: ((error: Error) => void) | null = null;
    let received = 0;
    let receivedAtFailure = 0;

    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      receivedAtFailure = received;
      abortFile?.(error);
      reject(error);
    };

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (failure && received - receivedAtFailure > DRAIN_LIMIT) req.destroy();
    };
    req.on('data', onData);
    req.once('close', () => {
      req.off('data', onData);
      if (!req.complete) fail(new ClientAborted('The client went away before the upload finished.'));
    });

    const storeFile = async (stream: Readable, info: busboy.FileInfo) => {
      const inspector = new ContentInspector(info.filename ?? '', info.mimeType ?? '');
      const { head, ended } = await readHead(stream, HEAD_BYTES);
      if (failure) throw failure;
      await inspector.begin(head, ended);
      if (failure) throw failure;
      // The head is checked before anything is stored: most refusals never reach the storage.
      inspector.update(head);
      let verdict: Inspection | null = null;
      let headPassed = false;
      const checked = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          if (!headPassed) {
            headPassed = true; // the head, inspected above
            callback(null, chunk);
            return;
          }
          try {
            inspector.update(chunk);
            callback(null, chunk);
          } catch (error) {
            callback(error as Error);
          }
        },
        flush(callback) {
          try {
            verdict = inspector.finish();
            callback();
          } catch (error) {
            callback(error as Error);
          }
        },
      });
      // Errors reach the caller through the storage's promise; this keeps one raised before it listens from going unhandled.
      checked.on('error', () => undefined);
      abortFile = (error) => checked.destroy(error);
      stream.once('limit', () => checked.destroy(new AttachmentTooLarge()));
      stream.once('error', (error) => checked.destroy(error));
      // The part's own media type is not trusted: objects are stored as plain bytes.
      const writing = storage.put(key, checked, { contentType: 'application/octet-stream' });
      checked.write(head);
      if (ended) checked.end();
      else stream.pipe(checked);
      try {
        await writing;
      } catch (error) {
        stream.unpipe(checked);
        throw error;
      }
      if (!verdict) throw new Error('The upload ended without a verdict.');
      const result: Inspection = verdict;
      return { ...result, fileName: sanitizeFileName(info.filename, result.kind) };
    };

    parser.on('field', (name, value, info) => {
      if (!allowedFields.includes(name))
        return fail(ValidationFailed.field(name, `${name} is not a known field.`));
      if (info.valueTruncated || info.nameTruncated)
        return fail(ValidationFailed.field(name, `${name} is too long.`));
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(ValidationFailed.field(name, `${name} is not a known field; the file goes in "file".`));
      }
      if (failure || stored) {
        stream.resume();
        return;
      }
      stored = storeFile(stream, info).catch((error: unknown) => {
        // Drop the rest of the part so the form can be read to its end.
        stream.resume();
        fail(asUploadError(error));
        return null;
      });
    });
    const tooMany = () =>
      fail(new MultipartRequired('Send one file, in the part named "file", and no other parts.'));
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', (error: Error) =>
      fail(new InvalidAttachmentFile(`The multipart body is malformed: ${error.message}.`)),
    );
    parser.on('close', () => {
      if (failure) return;
      if (!stored)
        return fail(new MultipartRequired('The form has no file: send it in a part named "file".'));
      void stored.then((file) => {
        if (file && !failure) resolve({ ...file, fields });
      });
    });
    req.pipe(parser);

    // A refusal that came after the object was complete (a bad field after the file) must not leave it behind.
    const settle = async () => {
      const file = await stored;
      if (file && failure) await storage.delete(key).catch(() => undefined);
    };
    parser.once('close', () => void settle());
    req.once('close', () => void settle());
  });
}

function asUploadError(error: unknown): Error {
  if (error instanceof DomainError || error instanceof ClientAborted) return error;
  logger.error(`Storing an upload failed: ${error instanceof Error ? error.message : String(error)}`);
  return new StorageUnavailable();
}
