import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from './product.entity';

/** Column lineage: `downstreamColumn` of the downstream product is derived from `upstreamColumn` of the upstream one. */
@Entity('lineage_column_edges')
@Index('lineage_column_edges_upstream_idx', ['upstreamId', 'downstreamId'])
export class LineageColumnEdge {
  @PrimaryColumn('uuid')
  downstreamId: string;

  @PrimaryColumn('text')
  downstreamColumn: string;

  @PrimaryColumn('uuid')
  upstreamId: string;

  @PrimaryColumn('text')
  upstreamColumn: string;

  @Column('uuid')
  spaceId: string;

  @Column('text', { nullable: true })
  jobNamespace: string | null;

  @Column('text', { nullable: true })
  jobName: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'downstream_id', foreignKeyConstraintName: 'lineage_column_edges_downstream_fk' })
  downstream?: Product;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'upstream_id', foreignKeyConstraintName: 'lineage_column_edges_upstream_fk' })
  upstream?: Product;
}
