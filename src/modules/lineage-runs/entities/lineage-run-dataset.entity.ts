import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';
import { LineageRun } from './lineage-run.entity';

export const RUN_DATASET_DIRECTIONS = ['input', 'output'] as const;
export type RunDatasetDirection = (typeof RUN_DATASET_DIRECTIONS)[number];

/** A product a run read (`input`) or wrote (`output`), as any of its events named it. */
@Entity('lineage_run_datasets')
@Index('lineage_run_datasets_product_idx', ['productId', 'lineageRunId'])
export class LineageRunDataset {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'lineage_run_datasets_pkey' })
  lineageRunId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'lineage_run_datasets_pkey' })
  direction: RunDatasetDirection;

  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'lineage_run_datasets_pkey' })
  productId: string;

  @ManyToOne(() => LineageRun, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'lineage_run_id', foreignKeyConstraintName: 'lineage_run_datasets_run_fk' })
  run?: LineageRun;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'lineage_run_datasets_product_fk' })
  product?: Product;
}
