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
import type { Severity } from './check.entity';
import { Check } from './check.entity';
import { Incident } from './incident.entity';

export const ALERT_TYPES = [
  'quality_check_failed',
  'freshness_breach',
  'schema_change',
  'anomaly',
  'trend',
  'contract_violation',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** An alert; every alert belongs to exactly one incident. */
@Entity('quality_alerts')
@Index('quality_alerts_space_created_idx', ['spaceId', 'createdAt', 'id'])
@Index('quality_alerts_space_status_idx', ['spaceId', 'status', 'createdAt'])
@Index('quality_alerts_incident_idx', ['incidentId', 'createdAt'])
@Index('quality_alerts_product_created_idx', ['productId', 'createdAt', 'incidentId'])
@Index('quality_alerts_check_idx', ['checkId'])
export class Alert {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid')
  productId: string;

  @Column('uuid', { nullable: true })
  checkId: string | null;

  @Column('uuid', { nullable: true })
  runId: string | null;

  @Column('uuid')
  incidentId: string;

  @Column('text')
  alertType: AlertType;

  @Column('text')
  severity: Severity;

  @Column('text', { default: 'open' })
  status: AlertStatus;

  @Column('text')
  message: string;

  @Column('jsonb', { default: () => `'{}'` })
  metadata: Record<string, unknown>;

  @Column('timestamptz', { nullable: true })
  acknowledgedAt: Date | null;

  @Column('uuid', { nullable: true })
  acknowledgedBy: string | null;

  @Column('timestamptz', { nullable: true })
  resolvedAt: Date | null;

  @Column('uuid', { nullable: true })
  resolvedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'quality_alerts_space_fk' })
  space?: Space;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'quality_alerts_product_fk' })
  product?: Product;

  @ManyToOne(() => Check, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'check_id', foreignKeyConstraintName: 'quality_alerts_check_fk' })
  check?: Check | null;

  @ManyToOne(() => Incident, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'incident_id', foreignKeyConstraintName: 'quality_alerts_incident_fk' })
  incident?: Incident;
}
