import { DomainError, PayloadTooLarge, ValidationFailed } from '../../common/errors/domain-error';

/** The spec's 400 for attachments: the file is not an accepted kind, or contradicts its claimed type. */
export class InvalidAttachmentFile extends DomainError {
  constructor(detail: string) {
    super(400, 'invalid-attachment-file', 'Bad Request', detail, { code: 'invalid_file' });
  }
}

export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;

export class AttachmentTooLarge extends PayloadTooLarge {
  constructor(headers: Record<string, string> = {}) {
    super('The file is larger than the 50 MB attachments may have.');
    Object.assign(this.headers, headers);
  }
}

/** The body is not the multipart form the upload endpoints take (422: the request contract). */
export class MultipartRequired extends ValidationFailed {
  constructor(message = 'The body must be multipart/form-data with the file in a part named "file".') {
    super([{ field: 'file', message }]);
  }
}

/** The object store failed (not the client's doing). */
export class StorageUnavailable extends DomainError {
  constructor() {
    super(
      503,
      'storage-unavailable',
      'Service Unavailable',
      'The file storage is unavailable; try again later.',
      {
        code: 'storage_unavailable',
      },
    );
  }
}

/** A signed download link that was altered or has expired. */
export class DownloadLinkRejected extends DomainError {
  constructor(detail: string) {
    super(403, 'forbidden', 'Forbidden', detail, { code: 'download_link_invalid' });
  }
}
