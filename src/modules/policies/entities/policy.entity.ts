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

export const POLICY_TYPES = [
  'ownership',
  'documentation',
  'classification',
  'data_quality',
  'security',
  'privacy',
  'lifecycle',
  'ai_governance',
  'custom',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

export const POLICY_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type PolicySeverity = (typeof POLICY_SEVERITIES)[number];

/**
 * A governance policy: a CEL rule every product of the space is checked
 * against. Names are unique per space, case-insensitively (the raw index
 * policies_space_name_key on (space_id, lower(name)), which also orders lists).
 */
@Entity('policies')
@Index('policies_search_vector_idx', { synchronize: false })
@Index('policies_space_name_key', { synchronize: false })
@Index('policies_space_type_idx', ['spaceId', 'policyType'])
export class Policy {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  policyType: PolicyType;

  @Column('text')
  ruleExpression: string;

  @Column('text')
  severity: PolicySeverity;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  @Column('boolean', { default: false })
  isArchived: boolean;

  @Column('timestamptz', { nullable: true })
  archivedAt: Date | null;

  /** When a run last covered every product of the space. */
  @Column('timestamptz', { nullable: true })
  lastEvaluatedAt: Date | null;

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
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'policies_space_fk' })
  space?: Space;
}
