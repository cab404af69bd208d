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
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';
import type { Impact, Likelihood, RiskCategory, RiskStatus, RiskTier } from '../risk-scoring';

/**
 * A risk of the register. `score` and `tier` are stored (derived from
 * likelihood and impact on every write) so that lists filter by tier on an
 * index; the heat map reads its counts from risk_heat_map_cells (kept by
 * triggers, RiskHeatMapCells migration) and pages each cell's ids on its index.
 */
@Entity('risks')
@Index('risks_search_vector_idx', { synchronize: false })
@Index('risks_space_created_idx', ['spaceId', 'createdAt', 'id'])
@Index('risks_space_category_idx', ['spaceId', 'category', 'createdAt'])
@Index('risks_space_status_idx', ['spaceId', 'status', 'createdAt'])
@Index('risks_space_tier_idx', ['spaceId', 'tier', 'createdAt'])
@Index('risks_space_cell_idx', ['spaceId', 'likelihood', 'impact', 'id'])
@Index('risks_owner_idx', ['ownerId'])
export class Risk {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  category: RiskCategory;

  @Column('text')
  likelihood: Likelihood;

  @Column('text')
  impact: Impact;

  @Column('smallint')
  score: number;

  @Column('text')
  tier: RiskTier;

  @Column('text', { default: 'identified' })
  status: RiskStatus;

  @Column('text', { nullable: true })
  mitigationPlan: string | null;

  @Column('uuid', { nullable: true })
  ownerId: string | null;

  /** A calendar date (YYYY-MM-DD). */
  @Column('date', { nullable: true })
  reviewDate: string | null;

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
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'risks_space_fk' })
  space?: Space;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'risks_owner_fk' })
  owner?: User | null;
}
