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
import { Connector } from '../../connectors/entities/connector.entity';
import { Space } from '../../spaces/entities/space.entity';

export const CHECK_TYPES = [
  'sql_assertion',
  'row_count',
  'null_rate',
  'freshness',
  'schema',
  'custom',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RUN_STATUSES = ['passed', 'failed', 'error'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A quality check on a product, evaluated on its connector's database (or fed pushed results). */
@Entity('quality_checks')
@Index('quality_checks_space_idx', ['spaceId', 'createdAt'])
@Index('quality_checks_product_idx', ['productId'])
@Index('quality_checks_connector_idx', ['connectorId'])
@Index('quality_checks_due_idx', ['nextRunAt'], { where: 'next_run_at IS NOT NULL' })
export class Check {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid')
  productId: string;

  @Column('uuid', { nullable: true })
  connectorId: string | null;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  checkType: CheckType;

  @Column('text')
  severity: Severity;

  @Column('jsonb', { default: () => `'{}'` })
  config: Record<string, unknown>;

  @Column('text', { nullable: true })
  scheduleCron: string | null;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  /** The next scheduled run; null when unscheduled or disabled. */
  @Column('timestamptz', { nullable: true })
  nextRunAt: Date | null;

  @Column('timestamptz', { nullable: true })
  lastRunAt: Date | null;

  @Column('text', { nullable: true })
  lastStatus: RunStatus | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'quality_checks_space_fk' })
  space?: Space;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'quality_checks_product_fk' })
  product?: Product;

  @ManyToOne(() => Connector, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'connector_id', foreignKeyConstraintName: 'quality_checks_connector_fk' })
  connector?: Connector | null;
}
