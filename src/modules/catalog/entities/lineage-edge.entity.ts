import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from './product.entity';

/**
 * Data flows from `upstream` to `downstream`. The primary key serves walks
 * downstream (by upstream_id); the second index walks upstream.
 */
@Entity('lineage_edges')
@Index('lineage_edges_downstream_idx', ['downstreamId', 'upstreamId'])
export class LineageEdge {
  @PrimaryColumn('uuid')
  upstreamId: string;

  @PrimaryColumn('uuid')
  downstreamId: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  /** The OpenLineage job whose run recorded the edge; null for an edge made by hand. */
  @Column('text', { nullable: true })
  jobNamespace: string | null;

  @Column('text', { nullable: true })
  jobName: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'upstream_id', foreignKeyConstraintName: 'lineage_edges_upstream_fk' })
  upstream?: Product;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'downstream_id', foreignKeyConstraintName: 'lineage_edges_downstream_fk' })
  downstream?: Product;
}
