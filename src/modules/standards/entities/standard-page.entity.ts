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
import { Space } from '../../spaces/entities/space.entity';

export const STANDARD_PAGE_STATUSES = ['draft', 'published'] as const;
export type StandardPageStatus = (typeof STANDARD_PAGE_STATUSES)[number];

/**
 * A standards page of a space: a written convention (naming, retention,
 * classification, ...). Drafts are seen by editors only; published pages by
 * every member, and only published pages are embedded for semantic search.
 */
@Entity('standard_pages')
// Lists: a space's pages (editors) or its published ones (viewers), newest change first.
@Index('standard_pages_space_status_updated_idx', ['spaceId', 'status', 'updatedAt'])
@Index('standard_pages_space_updated_idx', ['spaceId', 'updatedAt', 'id'])
// Keyset batches of the published pages for reindexing.
@Index('standard_pages_published_id_idx', ['id'], { where: `status = 'published'` })
@Index('standard_pages_search_vector_idx', { synchronize: false })
export class StandardPage {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  title: string;

  @Column('text', { default: '' })
  body: string;

  @Column('text', { default: 'draft' })
  status: StandardPageStatus;

  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @Column('uuid', { nullable: true })
  updatedBy: string | null;

  /** The full-text search document, kept by a trigger (StandardPageSearchVector migration); only search reads it. */
  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchVector: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'standard_pages_space_fk' })
  space?: Space;
}
