import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, Forbidden, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { isUuid } from '../../common/validation/field.decorators';
import { TransactionRunner } from '../../database/transaction.runner';
import { TicketsService } from '../tickets/tickets.service';
import { AttachmentStore, FileDownload } from './attachment-store.service';
import { toTicketAttachmentResponse } from './attachments.mapper';
import { TicketAttachmentResponse } from './dto/attachment.dto';
import { Attachment } from './entities/attachment.entity';
import { MultipartUpload } from './multipart-upload';

const TICKET_FORM_FIELDS = ['comment_id'] as const;

/**
 * Files attached to issue-tracker tickets, optionally to one of their
 * comments. Like commenting, attaching is open to any member of the ticket's
 * space; deleting is for the uploader or the ticket's owner (its reporter),
 * and a superadmin.
 */
@Injectable()
export class TicketAttachmentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tickets: TicketsService,
    private readonly store: AttachmentStore,
    private readonly tx: TransactionRunner,
  ) {}

  async upload(actor: Actor, ticketId: string, upload: MultipartUpload): Promise<TicketAttachmentResponse> {
    // The ticket and the caller's membership are checked before a byte of the body is read.
    const { ticket } = await this.tickets.authorize(actor, ticketId, this.dataSource.manager);
    const { id, storageKey } = this.store.newId();
    const file = await this.store.receive(upload, storageKey, TICKET_FORM_FIELDS);
    try {
      const commentId = file.fields.comment_id?.trim() || null;
      if (commentId !== null && !isUuid(commentId)) {
        throw ValidationFailed.field('comment_id', 'comment_id must be a UUID');
      }
      return await this.tx.run(async (em) => {
        // Still there, and still readable by the caller, now that the file has arrived.
        await this.tickets.authorize(actor, ticket.id, em);
        if (commentId && !(await this.tickets.hasComment(ticket.id, commentId, em))) {
          throw ValidationFailed.field('comment_id', 'comment_id must name a comment of this ticket.');
        }
        await this.store.record(
          em,
          Object.assign(new Attachment(), {
            id,
            spaceId: ticket.spaceId,
            parentType: 'ticket',
            parentId: ticket.id,
            productId: null,
            ticketId: ticket.id,
            commentId,
            storageKey,
            fileName: file.fileName,
            fileSize: file.size,
            mimeType: file.mime,
            uploadedBy: actor.userId,
            createdAt: new Date(),
          }),
        );
        return toTicketAttachmentResponse(
          await em.getRepository(Attachment).findOneOrFail({ where: { id }, relations: { uploader: true } }),
        );
      });
    } catch (error) {
      await this.store.discard(storageKey);
      throw error;
    }
  }

  async download(actor: Actor, attachmentId: string): Promise<FileDownload> {
    const attachment = await this.findReadable(actor, this.dataSource.manager, attachmentId, false);
    return this.store.open(attachment.attachment);
  }

  async delete(actor: Actor, attachmentId: string): Promise<void> {
    await this.store.deleteAuthorized(actor.userId, async (em) => {
      const { attachment, reporterId } = await this.findReadable(actor, em, attachmentId, true);
      if (attachment.uploadedBy !== actor.userId && reporterId !== actor.userId && !actor.isSuperadmin) {
        throw new Forbidden(
          "Only the uploader or the ticket's owner may delete this attachment.",
          'attachment_delete_forbidden',
        );
      }
      return attachment;
    });
  }

  /** A ticket attachment of a ticket the caller may read; 404 otherwise. */
  private async findReadable(
    actor: Actor,
    em: EntityManager,
    id: string,
    lock: boolean,
  ): Promise<{ attachment: Attachment; reporterId: string }> {
    const { attachment, parentId: ticketId } = await this.store.load(em, id, 'ticket', lock);
    try {
      const { ticket } = await this.tickets.authorize(actor, ticketId, em);
      return { attachment, reporterId: ticket.reporterId };
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new NotFound('attachment', id);
      throw error;
    }
  }
}
