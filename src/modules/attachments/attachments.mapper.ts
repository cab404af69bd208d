import { AttachmentResponse, TicketAttachmentResponse } from './dto/attachment.dto';
import { Attachment } from './entities/attachment.entity';

/** Expects the `uploader` relation loaded. */
export function toAttachmentResponse(attachment: Attachment): AttachmentResponse {
  return {
    id: attachment.id,
    file_name: attachment.fileName,
    file_size: attachment.fileSize,
    mime_type: attachment.mimeType,
    uploaded_by: attachment.uploader
      ? { id: attachment.uploader.id, full_name: attachment.uploader.fullName }
      : null,
    created_at: attachment.createdAt.toISOString(),
  };
}

export function toTicketAttachmentResponse(attachment: Attachment): TicketAttachmentResponse {
  return { ...toAttachmentResponse(attachment), comment_id: attachment.commentId };
}
