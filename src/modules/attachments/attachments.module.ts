import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { AttachmentStore } from './attachment-store.service';
import { Attachment } from './entities/attachment.entity';
import { CatalogAttachmentsController, ProductAttachmentsController } from './product-attachments.controller';
import { ProductAttachmentsService } from './product-attachments.service';

/**
 * File attachments of data products (and tickets): streamed uploads checked
 * by content, the object storage of the platform, signed downloads.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Attachment]), CatalogModule],
  controllers: [ProductAttachmentsController, CatalogAttachmentsController],
  providers: [AttachmentStore, ProductAttachmentsService],
})
export class AttachmentsModule {}
