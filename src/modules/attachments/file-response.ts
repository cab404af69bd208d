import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { FileDownload } from './attachment-store.service';

/** Sends an opened attachment with its download headers. */
export function fileResponse(download: FileDownload, response: Response): StreamableFile {
  response.set(download.headers);
  return new StreamableFile(download.object.stream, {
    type: download.headers['Content-Type'],
    disposition: download.headers['Content-Disposition'],
    length: download.object.size,
  });
}

/** The OpenAPI description of a file answer. */
export const FILE_CONTENT = {
  description: 'The file, with `Content-Disposition: attachment` and its sanitised name.',
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
};
