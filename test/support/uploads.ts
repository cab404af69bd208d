import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { checkExchange } from './openapi-contract';

export interface RawPart {
  name: string;
  /** A file part when set; written into the header as given (raw bytes, so tests can send anything). */
  filename?: string;
  /** Sent as RFC 5987 `filename*=UTF-8''…` (percent-encoded by this helper). */
  filenameStar?: string;
  contentType?: string;
  body: Buffer | string;
}

export const BOUNDARY = '----verity-test-boundary-7MA4YWxkTrZu0gW';

/** A multipart/form-data body built by hand, for names and headers a form library would refuse to send. */
export function multipartBody(parts: RawPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let header = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) header += `; filename="${part.filename}"`;
    if (part.filenameStar !== undefined)
      header += `; filename*=UTF-8''${encodeURIComponent(part.filenameStar)}`;
    header += '\r\n';
    if (part.contentType) header += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${header}\r\n`, 'utf8'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

export interface StreamedResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Bytes of the body the client managed to send before the answer was complete. */
  sent: number;
}

/**
 * POSTs a generated file of `size` bytes as a chunked multipart upload, never
 * holding more than one 64 KiB chunk: the body starts with `prefix` (a real
 * file head) and is padded with `fill`.
 */
export function streamUpload(options: {
  url: string;
  token: string;
  size: number;
  fileName: string;
  contentType: string;
  prefix?: Buffer;
  fill?: number;
  contentLength?: number;
}): Promise<StreamedResult> {
  const { size, prefix = Buffer.alloc(0), fill = 0x41 } = options;
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${options.fileName}"\r\n` +
      `Content-Type: ${options.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, fill);
  let produced = 0;
  let sent = 0;
  const body = new Readable({
    read() {
      if (produced === 0) {
        this.push(head);
        this.push(prefix);
        produced = prefix.length;
        return;
      }
      if (produced >= size) {
        this.push(tail);
        this.push(null);
        return;
      }
      const n = Math.min(chunk.length, size - produced);
      produced += n;
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    };
    if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
    const req = httpRequest(options.url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = { text };
        }
        const status = res.statusCode ?? 0;
        body.destroy();
        // The answer is held to the app's OpenAPI document like every other (see openapi-contract.ts).
        checkExchange({ method: 'POST', url: options.url, status, headers: res.headers, text }).then(
          () => resolve({ status, headers: res.headers, body: parsed, sent }),
          reject,
        );
      });
    });
    req.on('error', reject);
    body.pipe(req);
  });
}
