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

export const INCIDENT_STATUSES = ['open', 'investigating', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/**
 * A group of correlated alerts. The list pages by (space, created_at) with or
 * without a status; correlation looks for the space's recent open ones.
 */
@Entity('quality_incidents')
@Index('quality_incidents_search_vector_idx', { synchronize: false })
@Index('quality_incidents_space_created_idx', ['spaceId', 'createdAt', 'id'])
@Index('quality_incidents_space_status_idx', ['spaceId', 'status', 'createdAt', 'id'])
@Index('quality_incidents_root_product_idx', ['rootProductId'])
export class Incident {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  title: string;

  @Column('text', { default: 'open' })
  status: IncidentStatus;

  @Column('text')
  severity: Severity;

  @Column('integer', { default: 0 })
  alertCount: number;

  @Column('text', { nullable: true })
  rootCause: string | null;

  @Column('uuid', { nullable: true })
  rootProductId: string | null;

  /** True once PATCH set the root product: joining alerts no longer move it. */
  @Column('boolean', { default: false })
  rootProductPinned: boolean;

  /** Names of the products downstream of the root, as of the last refresh. */
  @Column('jsonb', { default: () => `'[]'` })
  blastRadiusSnapshot: string[];

  /** Ids of the same products. */
  @Column('uuid', { array: true, default: () => `'{}'` })
  blastRadiusIds: string[];

  @Column('text', { nullable: true })
  description: string | null;

  /** Set by notify-downstream; resolving then tells the downstream owners too. */
  @Column('timestamptz', { nullable: true })
  downstreamNotifiedAt: Date | null;

  /** The full-text search document, kept by a trigger (SearchVectors migration); only search reads it. */
  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchVector: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column('timestamptz', { nullable: true })
  resolvedAt: Date | null;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'quality_incidents_space_fk' })
  space?: Space;

  @ManyToOne(() => Product, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'root_product_id', foreignKeyConstraintName: 'quality_incidents_root_product_fk' })
  rootProduct?: Product | null;
}
