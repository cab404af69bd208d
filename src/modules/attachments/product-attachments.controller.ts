import { Controller, Delete, Get, HttpCode, Param, Post, Query, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Public } from '../../common/auth/public.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import type { DownloadLink } from './attachment-store.service';
import {
  AttachmentDeletedResponse,
  AttachmentParams,
  AttachmentResponse,
  DownloadLinkResponse,
  PRODUCT_UPLOAD_BODY,
  ProductAttachmentsParams,
  SignedDownloadQuery,
} from './dto/attachment.dto';
import { FILE_CONTENT, fileResponse } from './file-response';
import { MultipartUpload, UploadedForm } from './multipart-upload';
import { ProductAttachmentsService } from './product-attachments.service';

export const KINDS_AND_CHECKS =
  'The kind is decided from the content alone: magic bytes for PDF, PNG, JPEG, GIF, ZIP, Parquet, the OOXML packages ' +
  '(docx, xlsx, pptx, told from a plain ZIP by their content types) and the legacy OLE files (doc, xls, ppt, by their streams); ' +
  'UTF-8 text checked whole for JSON (parseable), XML (well-formed, one root; an `svg` root makes it SVG) and CSV ' +
  '(at least two columns, the same number in every record). A file name or part media type that names another kind, ' +
  'HTML, executables, macro-enabled Office files, truncated archives and any other content answer 400. ' +
  'Over 50 MB answers 413 as soon as the limit is crossed; the upload streams to storage and nothing is kept of a refused file. ' +
  'File names are sanitised (last path segment, no control characters, quotes or backslashes, at most 200 characters).';

@ApiTags('Attachments')
@Controller('catalog/spaces/:slug/products/:product_id/attachments')
export class ProductAttachmentsController {
  constructor(private readonly attachments: ProductAttachmentsService) {}

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listProductAttachments',
    summary: 'List the files attached to a data product',
    description: 'Any member of the space. Newest first; a plain array (the specification gives no paging).',
  })
  @ApiOkResponse({ type: [AttachmentResponse] })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductAttachmentsParams,
  ): Promise<AttachmentResponse[]> {
    return this.attachments.list(actor, access, params.product_id);
  }

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'uploadProductAttachment',
    summary: 'Attach a file to a data product (edit access)',
    description: `Multipart form with one part, \`file\`. Viewers get 403. ${KINDS_AND_CHECKS}`,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody(PRODUCT_UPLOAD_BODY)
  @ApiCreatedResponse({ type: AttachmentResponse })
  @ApiProblems(400, 413, 422, 503)
  upload(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductAttachmentsParams,
    @UploadedForm() form: MultipartUpload,
  ): Promise<AttachmentResponse> {
    return this.attachments.upload(actor, access, params.product_id, form);
  }
}

@ApiTags('Attachments')
@Controller('catalog/attachments')
export class CatalogAttachmentsController {
  constructor(private readonly attachments: ProductAttachmentsService) {}

  @Get(':attachment_id/download')
  @Authenticated()
  @ApiOperation({
    operationId: 'getProductAttachmentDownload',
    summary: 'Get a signed, expiring download URL for a product attachment',
    description:
      'Any member of the space (404 for anyone else). With the `s3` storage backend the URL is a presigned GET URL of the store, ' +
      'which answers with the type and `attachment` disposition the API would send (a store cannot add a CSP header, but it serves ' +
      "from its own origin, never the API's); " +
      "with `local` it is this API's `/catalog/attachments/{attachment_id}/content` route with an HMAC signature, which answers 403 " +
      'once altered or expired. Links live 15 minutes unless ATTACHMENT_LINK_TTL_SECONDS says otherwise; the file comes as a download ' +
      '(`Content-Disposition: attachment`).',
  })
  @ApiOkResponse({ type: DownloadLinkResponse })
  @ApiProblems(404, 422, 503)
  download(@CurrentActor() actor: Actor, @Param() params: AttachmentParams): Promise<DownloadLink> {
    return this.attachments.downloadLink(actor, params.attachment_id);
  }

  @Get(':attachment_id/content')
  @Public()
  @ApiOperation({
    operationId: 'downloadSignedAttachment',
    summary: 'Download a file through a signed link (local storage)',
    description:
      'Needs no credentials: the signature is the permission. A link that was altered, or has expired, or whose attachment was deleted ' +
      'answers 403. Served with `Content-Disposition: attachment`, `X-Content-Type-Options: nosniff` and ' +
      "`Content-Security-Policy: sandbox`, so that no file (an SVG included) can run script in the API's origin.",
  })
  @ApiOkResponse(FILE_CONTENT)
  @ApiProblems(403, 404, 422, 503)
  async content(
    @Param() params: AttachmentParams,
    @Query() query: SignedDownloadQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const download = await this.attachments.openSigned(params.attachment_id, query.expires, query.signature);
    return fileResponse(download, response);
  }

  @Delete(':attachment_id')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteProductAttachment',
    summary: 'Delete a product attachment (its uploader, a Space Admin or a superadmin)',
    description:
      'Other members get 403, non-members 404. Answers `{message}`. The row goes at once; the stored object is deleted right after, ' +
      'and a background job retries should the storage fail then.',
  })
  @ApiOkResponse({ type: AttachmentDeletedResponse })
  @ApiProblems(403, 404, 422)
  delete(
    @CurrentActor() actor: Actor,
    @Param() params: AttachmentParams,
  ): Promise<AttachmentDeletedResponse> {
    return this.attachments.delete(actor, params.attachment_id);
  }
}
