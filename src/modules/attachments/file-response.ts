import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { FileDownload } from './attachment-store.service';
import { FILE_KINDS } from './inspection/file-kinds';

/** Sends an opened attachment with its download headers. */
export function fileResponse(download: FileDownload, response: Response): StreamableFile {
  response.set(download.headers);
  return new StreamableFile(download.object.stream, {
    type: download.headers['Content-Type'],
    disposition: download.headers['Content-Disposition'],
    length: download.object.size,
  });
}

/** The OpenAPI description of a file answer: served with the media type it was stored as, one of the accepted kinds. */
export const FILE_CONTENT = {
  description:
    'The file, with `Content-Disposition: attachment` and its sanitised name, as the media type of its kind ' +
    '(text kinds with `charset=utf-8`).',
  content: Object.fromEntries(
    [...new Set(Object.values(FILE_KINDS).map((kind) => kind.mime))]
      .sort()
      .map((mime) => [mime, { schema: { type: 'string', format: 'binary' } }]),
  ),
};
