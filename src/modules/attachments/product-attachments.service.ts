import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { DomainError, Forbidden, NotFound } from '../../common/errors/domain-error';
import { SpaceAccess, SpaceAccessPort } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { AttachmentStore, DownloadLink, FileDownload } from './attachment-store.service';
import { toAttachmentResponse } from './attachments.mapper';
import { AttachmentDeletedResponse, AttachmentResponse } from './dto/attachment.dto';
import { Attachment } from './entities/attachment.entity';
import { MultipartUpload } from './multipart-upload';

/** Files attached to data products: any member reads them, edit access uploads. */
@Injectable()
export class ProductAttachmentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly products: ProductDirectoryService,
    private readonly access: SpaceAccessPort,
    private readonly store: AttachmentStore,
    private readonly tx: TransactionRunner,
  ) {}

  async list(_actor: Actor, access: SpaceAccess, productId: string): Promise<AttachmentResponse[]> {
    await this.products.getInSpace(this.dataSource.manager, access.space.id, productId);
    const rows = await this.dataSource.getRepository(Attachment).find({
      where: { productId },
      relations: { uploader: true },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    return rows.map(toAttachmentResponse);
  }

  async upload(
    actor: Actor,
    access: SpaceAccess,
    productId: string,
    upload: MultipartUpload,
  ): Promise<AttachmentResponse> {
    const spaceId = access.space.id;
    // The product is checked before a byte of the body is read.
    await this.products.getInSpace(this.dataSource.manager, spaceId, productId);
    const { id, storageKey } = this.store.newId();
    const file = await this.store.receive(upload, storageKey, []);
    try {
      return await this.tx.run(async (em) => {
        // Still there: it may have been deleted while the file arrived.
        await this.products.getInSpace(em, spaceId, productId);
        await this.store.record(
          em,
          Object.assign(new Attachment(), {
            id,
            spaceId,
            parentType: 'product',
            parentId: productId,
            productId,
            ticketId: null,
            commentId: null,
            storageKey,
            fileName: file.fileName,
            fileSize: file.size,
            mimeType: file.mime,
            uploadedBy: actor.userId,
            createdAt: new Date(),
          }),
        );
        return toAttachmentResponse(await this.loadWithUploader(em, id));
      });
    } catch (error) {
      await this.store.discard(storageKey);
      throw error;
    }
  }

  async downloadLink(actor: Actor, attachmentId: string): Promise<DownloadLink> {
    const { attachment } = await this.findReadable(actor, this.dataSource.manager, attachmentId, false);
    return this.store.link(attachment);
  }

  /** Behind a signed link (no credentials): the signature is the permission. */
  openSigned(attachmentId: string, expires?: string, signature?: string): Promise<FileDownload> {
    return this.store.openSigned(attachmentId, expires, signature);
  }

  delete(actor: Actor, attachmentId: string): Promise<AttachmentDeletedResponse> {
    return this.store.deleteAuthorized(actor.userId, async (em) => {
      const { attachment, access } = await this.findReadable(actor, em, attachmentId, true);
      if (attachment.uploadedBy !== actor.userId && access.effectiveRole !== 'admin') {
        throw new Forbidden(
          'Only the uploader, a Space Admin or a superadmin may delete this attachment.',
          'attachment_delete_forbidden',
        );
      }
      return attachment;
    });
  }

  /** A product attachment in a space the caller belongs to; 404 otherwise (its existence is not revealed). */
  private async findReadable(
    actor: Actor,
    em: EntityManager,
    id: string,
    lock: boolean,
  ): Promise<{ attachment: Attachment; access: SpaceAccess }> {
    const { attachment } = await this.store.load(em, id, 'product', lock);
    try {
      return { attachment, access: await this.access.requireRole(actor, attachment.spaceId, 'viewer', em) };
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw new NotFound('attachment', id);
      throw error;
    }
  }

  private async loadWithUploader(em: EntityManager, id: string): Promise<Attachment> {
    return em.getRepository(Attachment).findOneOrFail({ where: { id }, relations: { uploader: true } });
  }
}
