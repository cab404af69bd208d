import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';

export interface ColumnChange {
  name: string;
  type: string | null;
  previous_type?: string | null;
}

/** Columns added, removed or retyped between two `schema` facets of a product. */
@Entity('product_schema_changes')
@Index('product_schema_changes_product_idx', ['productId', 'changedAt'])
export class ProductSchemaChange {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid')
  productId: string;

  /** The event time of the event that carried the new schema. */
  @Column('timestamptz')
  changedAt: Date;

  @Column('jsonb')
  added: ColumnChange[];

  @Column('jsonb')
  removed: ColumnChange[];

  @Column('jsonb')
  changed: ColumnChange[];

  @Column('uuid', { nullable: true })
  runId: string | null;

  @Column('text', { nullable: true })
  jobNamespace: string | null;

  @Column('text', { nullable: true })
  jobName: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'product_schema_changes_product_fk' })
  product?: Product;
}
