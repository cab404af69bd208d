import { ApiProperty } from '@nestjs/swagger';
import { StringField, UuidField } from '../../../common/validation/field.decorators';
import { PersonRef } from '../../../common/http/person-ref.dto';
import { SlugParams } from '../../../common/http/slug-params.dto';

export class AttachmentResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({
    description: 'Sanitised: the last path segment only, without control characters or quotes.',
  })
  file_name: string;

  @ApiProperty({ type: 'integer', description: 'Bytes.' })
  file_size: number;

  @ApiProperty({
    description: 'The kind the content was found to be (not what the client claimed).',
    example: 'application/pdf',
  })
  mime_type: string;

  @ApiProperty({ type: PersonRef, nullable: true, description: 'Null once the uploading account is gone.' })
  uploaded_by: PersonRef | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class TicketAttachmentResponse extends AttachmentResponse {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The ticket comment it belongs to.',
  })
  comment_id: string | null;
}

export class DownloadLinkResponse {
  @ApiProperty({ format: 'uri', description: 'Signed; works without credentials until `expires_at`.' })
  download_url: string;

  @ApiProperty()
  file_name: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export class AttachmentDeletedResponse {
  @ApiProperty({ example: 'The attachment was deleted.' })
  message: string;
}

export class ProductAttachmentsParams extends SlugParams {
  @UuidField()
  product_id: string;
}

export class AttachmentParams {
  @UuidField()
  attachment_id: string;
}

/** The signature of a local download link (as issued; any change answers 403). */
export class SignedDownloadQuery {
  @StringField({ optional: true, max: 20, description: 'Unix time the link expires.' })
  expires?: string;

  @StringField({ optional: true, max: 100, description: 'HMAC-SHA256 of the link, base64url.' })
  signature?: string;
}

/** The multipart form of an upload, as documented (the body is read as a stream, not through a DTO). */
export const PRODUCT_UPLOAD_BODY = {
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        description:
          'Up to 50 MB (413 above). PDF, Word, Excel, PowerPoint, PNG, JPEG, GIF, SVG, CSV, JSON, XML, Parquet or ZIP, decided from the content.',
      },
    },
  },
};

export const TICKET_UPLOAD_BODY = {
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      ...PRODUCT_UPLOAD_BODY.schema.properties,
      comment_id: {
        type: 'string',
        format: 'uuid',
        description: 'A comment of this ticket (422 otherwise).',
      },
    },
  },
};
