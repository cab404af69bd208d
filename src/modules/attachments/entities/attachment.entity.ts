import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';
import { TicketComment } from '../../tickets/entities/ticket-comment.entity';
import { Ticket } from '../../tickets/entities/ticket.entity';
import { User } from '../../users/entities/user.entity';

export const ATTACHMENT_PARENTS = ['product', 'ticket'] as const;
export type AttachmentParent = (typeof ATTACHMENT_PARENTS)[number];

/**
 * A file attached to a data product or a ticket; its bytes live in the
 * object storage under `storageKey`. When the parent goes, its foreign key
 * is set to null rather than cascading, so that the row survives until the
 * orphan sweep deletes it together with its object (a cascade would leave
 * the object behind).
 */
@Entity('attachments')
@Index('attachments_product_idx', ['productId', 'createdAt'])
@Index('attachments_ticket_idx', ['ticketId', 'createdAt'])
@Index('attachments_comment_idx', ['commentId'])
@Index('attachments_uploaded_by_idx', ['uploadedBy'])
@Index('attachments_storage_key_key', ['storageKey'], { unique: true })
@Index('attachments_orphans_idx', ['createdAt'], { where: 'product_id IS NULL AND ticket_id IS NULL' })
export class Attachment {
  /** Assigned before the upload: the storage key is derived from it. */
  @PrimaryColumn('uuid')
  id: string;

  /** No foreign key: the row may outlive its space until the orphan sweep, which reports the space in its event. */
  @Column('uuid')
  spaceId: string;

  @Column('text')
  parentType: AttachmentParent;

  /**
   * The product or ticket it was attached to, kept (without a foreign key)
   * after the parent is gone, for the `attachment.deleted` event.
   */
  @Column('uuid')
  parentId: string;

  /** Set while the product exists (null after it is deleted: the row is then swept). */
  @Column('uuid', { nullable: true })
  productId: string | null;

  /** Set while the ticket exists (null after it is deleted: the row is then swept). */
  @Column('uuid', { nullable: true })
  ticketId: string | null;

  /** The ticket comment the file belongs to, if any (null again if the comment goes). */
  @Column('uuid', { nullable: true })
  commentId: string | null;

  @Column('text')
  storageKey: string;

  @Column('text')
  fileName: string;

  @Column('integer')
  fileSize: number;

  @Column('text')
  mimeType: string;

  @Column('uuid', { nullable: true })
  uploadedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Product, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'attachments_product_fk' })
  product?: Product;

  @ManyToOne(() => Ticket, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'ticket_id', foreignKeyConstraintName: 'attachments_ticket_fk' })
  ticket?: Ticket;

  @ManyToOne(() => TicketComment, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'comment_id', foreignKeyConstraintName: 'attachments_comment_fk' })
  comment?: TicketComment;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'uploaded_by', foreignKeyConstraintName: 'attachments_uploaded_by_fk' })
  uploader?: User;
}
