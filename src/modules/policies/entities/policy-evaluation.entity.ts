import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';
import { Policy } from './policy.entity';

export const EVALUATION_STATUSES = ['compliant', 'non_compliant', 'error'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/**
 * The latest evaluation of one product against one policy. Runs rewrite only
 * the rows whose outcome changed (a run over 100k products writes its
 * differences, not 100k rows); the policy's `last_evaluated_at` dates the rest.
 */
@Entity('policy_evaluations')
@Index('policy_evaluations_policy_product_key', ['policyId', 'productId'], { unique: true })
@Index('policy_evaluations_policy_status_idx', ['policyId', 'status'])
@Index('policy_evaluations_product_idx', ['productId', 'policyId'])
export class PolicyEvaluation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  policyId: string;

  @Column('uuid')
  productId: string;

  @Column('text')
  status: EvaluationStatus;

  @Column('text', { nullable: true })
  message: string | null;

  /** When this outcome was first found (or last found by a single-product re-evaluation). */
  @Column('timestamptz')
  evaluatedAt: Date;

  @ManyToOne(() => Policy, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'policy_id', foreignKeyConstraintName: 'policy_evaluations_policy_fk' })
  policy?: Policy;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'policy_evaluations_product_fk' })
  product?: Product;
}
