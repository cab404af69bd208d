import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

export const SEMANTIC_ITEM_TYPES = ['product', 'standard_page'] as const;

/**
 * The vector of one searchable item. The vector is stored as `real[]`
 * (L2-normalised, so a dot product is the cosine). Where pgvector exists the
 * vector store adds, per dimension count, a partial HNSW index over
 * `embedding::vector(n)`; TypeORM does not see expression indexes, so they
 * live outside this entity (see vector-store.ts).
 */
@Entity('item_embeddings')
// The candidates of a search without pgvector: filtered by space, type and size, ranked by
// signature from the index alone (they INCLUDE item_id and signature: raw SQL in the migration);
// the second serves a search over every space.
@Index('item_embeddings_space_type_idx', { synchronize: false })
@Index('item_embeddings_type_dimensions_idx', { synchronize: false })
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

  /**
   * Bits 1..n: the components above zero; bits n+1..2n: those below. The
   * Hamming distance of two signatures narrows candidates before the exact
   * cosine (see vector-store.ts).
   */
  @Column('bit varying')
  signature: string;

  /** sha256 of the embedder (provider, model, dimensions) and the text: unchanged items are not re-embedded. */
  @Column('text')
  contentHash: string;

  @Column('text')
  indexVersion: string;

  /** The item's own updated_at when it was read: an older read never overwrites a newer vector. */
  @Column('timestamptz')
  sourceUpdatedAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  embeddedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'item_embeddings_space_fk' })
  space?: Space;
}
