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
import { CriticalityLevel } from '../../metadata-config/entities/criticality-level.entity';
import { MaintenanceStatus } from '../../metadata-config/entities/maintenance-status.entity';
import { SensitivityLevel } from '../../metadata-config/entities/sensitivity-level.entity';
import { Space } from '../../spaces/entities/space.entity';

export const PRODUCT_TYPES = [
  'dataset',
  'dashboard',
  'ml_model',
  'pipeline',
  'api',
  'ai_system',
  'other',
] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/**
 * A data product. Names are unique per space, case-insensitively; that
 * index (space_id, lower(name)) also serves the list order. The trigram and
 * tag GIN indexes are raw SQL (see the CatalogCore migration).
 */
@Entity('products')
@Index('products_search_vector_idx', { synchronize: false })
@Index('products_space_name_key', { synchronize: false })
@Index('products_search_trgm_idx', { synchronize: false })
@Index('products_tags_idx', { synchronize: false })
@Index('products_space_type_idx', ['spaceId', 'productType'])
// Keyset pages in id order for whole-space batch reads (policy evaluation).
@Index('products_space_id_idx', ['spaceId', 'id'])
@Index('products_created_by_idx', ['createdBy'])
@Index('products_criticality_idx', ['criticalityId'])
@Index('products_sensitivity_idx', ['sensitivityId'])
@Index('products_maintenance_status_idx', ['maintenanceStatusId'])
export class Product {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { default: 'dataset' })
  productType: ProductType;

  @Column('text', { nullable: true })
  domain: string | null;

  @Column('text', { array: true, default: () => `'{}'` })
  tags: string[];

  @Column('uuid', { nullable: true })
  criticalityId: string | null;

  @Column('uuid', { nullable: true })
  sensitivityId: string | null;

  @Column('uuid', { nullable: true })
  maintenanceStatusId: string | null;

  /** Maximum age of the data in minutes; null means no freshness SLA. */
  @Column('integer', { nullable: true })
  slaFreshnessMinutes: number | null;

  @Column('jsonb', { default: () => `'{}'` })
  attributes: Record<string, unknown>;

  /** AI-system operations logging: which events are logged, when that was last reviewed, notes. */
  @Column('text', { array: true, default: () => `'{}'` })
  loggingEventTypes: string[];

  @Column('timestamptz', { nullable: true })
  loggingLastReviewed: Date | null;

  @Column('text', { nullable: true })
  loggingNotes: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  /** The full-text search document, kept by a trigger (SearchVectors migration); only search reads it. */
  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchVector: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'products_space_fk' })
  space?: Space;

  @ManyToOne(() => CriticalityLevel)
  @JoinColumn({ name: 'criticality_id', foreignKeyConstraintName: 'products_criticality_fk' })
  criticality?: CriticalityLevel | null;

  @ManyToOne(() => SensitivityLevel)
  @JoinColumn({ name: 'sensitivity_id', foreignKeyConstraintName: 'products_sensitivity_fk' })
  sensitivity?: SensitivityLevel | null;

  @ManyToOne(() => MaintenanceStatus)
  @JoinColumn({ name: 'maintenance_status_id', foreignKeyConstraintName: 'products_maintenance_status_fk' })
  maintenanceStatus?: MaintenanceStatus | null;
}
