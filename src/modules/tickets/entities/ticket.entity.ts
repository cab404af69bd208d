import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';

export const TICKET_STATUSES = ['open', 'in_progress', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** An issue-tracker ticket. The reporter owns it. Lists are newest first per space. */
@Entity('tickets')
@Index('tickets_search_vector_idx', { synchronize: false })
@Index('tickets_space_created_idx', ['spaceId', 'createdAt'])
@Index('tickets_space_status_idx', ['spaceId', 'status', 'createdAt'])
@Index('tickets_assignee_idx', ['assigneeId', 'createdAt'])
@Index('tickets_reporter_idx', ['reporterId'])
@Index('tickets_product_idx', ['productId'])
export class Ticket {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { default: 'open' })
  status: TicketStatus;

  @Column('text', { default: 'medium' })
  priority: TicketPriority;

  @Column('uuid')
  reporterId: string;

  @Column('uuid', { nullable: true })
  assigneeId: string | null;

  @Column('uuid', { nullable: true })
  productId: string | null;

  /** The full-text search document, kept by a trigger (SearchVectors migration); only search reads it. */
  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchVector: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'tickets_space_fk' })
  space?: Space;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'reporter_id', foreignKeyConstraintName: 'tickets_reporter_fk' })
  reporter?: User;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'assignee_id', foreignKeyConstraintName: 'tickets_assignee_fk' })
  assignee?: User | null;

  // Deleting a product keeps its tickets; they lose the link.
  @ManyToOne(() => Product, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'tickets_product_fk' })
  product?: Product | null;
}
