import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, Column, PrimaryColumn } from 'typeorm';
import { Product } from './product.entity';

/**
 * The OpenLineage identity of a dataset product (namespace and name by
 * OpenLineage's dataset naming; PostgreSQL: `postgres://host:port` and
 * `database.schema.table`), written by connector sync and by ingestion.
 */
@Entity('dataset_identities')
@Index('dataset_identities_product_idx', ['productId'])
export class DatasetIdentity {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('text')
  namespace: string;

  @PrimaryColumn('text')
  name: string;

  @Column('uuid')
  productId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'dataset_identities_product_fk' })
  product?: Product;
}
