import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

export const SEMANTIC_ITEM_TYPES = ['product', 'standard_page'] as const;
export type SemanticItemType = (typeof SEMANTIC_ITEM_TYPES)[number];

/**
 * The vector of one searchable item. The vector is stored as `real[]`
 * (L2-normalised, so a dot product is the cosine). Where pgvector exists the
 * vector store adds, per dimension count, a partial HNSW index over
 * `embedding::vector(n)`; TypeORM does not see expression indexes, so they
 * live outside this entity (see vector.store.ts).
 */
@Entity('item_embeddings')
@Index('item_embeddings_type_dimensions_idx', ['itemType', 'dimensions'])
@Index('item_embeddings_space_type_idx', ['spaceId', 'itemType', 'dimensions'])
// The changes since a transaction id, in keyset pages (see vector.cache.ts).
@Index('item_embeddings_written_xid_idx', ['writtenXid', 'itemType', 'itemId'])
export class ItemEmbedding {
  @PrimaryColumn('text')
  itemType: string;

  @PrimaryColumn('uuid')
  itemId: string;

  @Column('uuid')
  spaceId: string;

  @Column('integer')
  dimensions: number;

  @Column('real', { array: true })
  embedding: number[];

  /** sha256 of the embedder (provider, model, dimensions) and the text: unchanged items are not re-embedded. */
  @Column('text')
  contentHash: string;

  @Column('text')
  indexVersion: string;

  /** The embedder that made the vector (`fingerprintOf`): queries meet only vectors of their own embedder. */
  @Column('text')
  fingerprint: string;

  /** The item's own updated_at when it was read: an older read never overwrites a newer vector. */
  @Column('timestamptz')
  sourceUpdatedAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  embeddedAt: Date;

  /** The id of the transaction that last wrote the row, set by a trigger (see vector.cache.ts). */
  @Column({ type: 'bigint', select: false, insert: false, update: false })
  writtenXid: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'item_embeddings_space_fk' })
  space?: Space;
}
