import { Controller, Delete, Get, HttpCode, Param, Post, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { TicketParams } from '../tickets/dto/ticket.dto';
import { AttachmentParams, TICKET_UPLOAD_BODY, TicketAttachmentResponse } from './dto/attachment.dto';
import { FILE_CONTENT, fileResponse } from './file-response';
import { MultipartUpload, UploadedForm } from './multipart-upload';
import { KINDS_AND_CHECKS } from './product-attachments.controller';
import { TicketAttachmentsService } from './ticket-attachments.service';

@ApiTags('Attachments')
@Controller('issues')
export class TicketAttachmentsController {
  constructor(private readonly attachments: TicketAttachmentsService) {}

  @Post('tickets/:ticket_id/attachments')
  @Authenticated()
  @ApiOperation({
    operationId: 'uploadTicketAttachment',
    summary: 'Attach a file to a ticket, or to one of its comments',
    description:
      "Any member of the ticket's space, as for commenting (404 for anyone else). Multipart form: `file`, and optionally `comment_id`, " +
      `which must name a comment of this ticket (422 otherwise). ${KINDS_AND_CHECKS}`,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody(TICKET_UPLOAD_BODY)
  @ApiCreatedResponse({ type: TicketAttachmentResponse })
  @ApiProblems(400, 404, 413, 422, 503)
  upload(
    @CurrentActor() actor: Actor,
    @Param() params: TicketParams,
    @UploadedForm() form: MultipartUpload,
  ): Promise<TicketAttachmentResponse> {
    return this.attachments.upload(actor, params.ticket_id, form);
  }

  @Get('attachments/:attachment_id')
  @Authenticated()
  @ApiOperation({
    operationId: 'downloadTicketAttachment',
    summary: 'Download a ticket attachment',
    description:
      "Any member of the ticket's space (404 for anyone else). Streams the file with its type, length and " +
      '`Content-Disposition: attachment` (an RFC 6266 `filename*` for non-ASCII names), `X-Content-Type-Options: nosniff` and ' +
      "`Content-Security-Policy: sandbox`, so that no file (an SVG included) can run script in the API's origin.",
  })
  @ApiOkResponse(FILE_CONTENT)
  @ApiProblems(404, 422, 503)
  async download(
    @CurrentActor() actor: Actor,
    @Param() params: AttachmentParams,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    return fileResponse(await this.attachments.download(actor, params.attachment_id), response);
  }

  @Delete('attachments/:attachment_id')
  @Authenticated()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTicketAttachment',
    summary: "Delete a ticket attachment (its uploader or the ticket's owner)",
    description:
      "The ticket's owner is its reporter; a superadmin may too. Other members get 403, non-members 404. Answers `204` with no body " +
      '(the specification gives this row none, unlike the product attachment delete). The stored object is deleted right after the row, with a background retry should the storage fail.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(403, 404, 422)
  async delete(@CurrentActor() actor: Actor, @Param() params: AttachmentParams): Promise<void> {
    await this.attachments.delete(actor, params.attachment_id);
  }
}
