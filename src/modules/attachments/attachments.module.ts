import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { TicketsModule } from '../tickets/tickets.module';
import { AttachmentStore } from './attachment-store.service';
import { Attachment } from './entities/attachment.entity';
import { CatalogAttachmentsController, ProductAttachmentsController } from './product-attachments.controller';
import { ProductAttachmentsService } from './product-attachments.service';
import { TicketAttachmentsController } from './ticket-attachments.controller';
import { TicketAttachmentsService } from './ticket-attachments.service';

/**
 * File attachments of data products (and tickets): streamed uploads checked
 * by content, the object storage of the platform, signed downloads.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Attachment]), CatalogModule, TicketsModule],
  controllers: [ProductAttachmentsController, CatalogAttachmentsController, TicketAttachmentsController],
  providers: [AttachmentStore, ProductAttachmentsService, TicketAttachmentsService],
})
export class AttachmentsModule {}
