import { Column, Entity, PrimaryColumn } from 'typeorm';

export const EVALUATION_STATUSES = ['compliant', 'non_compliant', 'error'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/**
 * The latest evaluation of one product against one policy. Runs rewrite only
 * the rows whose outcome changed (a run over 100k products writes its
 * differences, not 100k rows); the policy's `last_evaluated_at` dates the rest.
 * The key is the only index and no foreign key checks a written row: deleting
 * a product or a policy deletes its outcomes by trigger (migration
 * LeanPolicyEvaluations, docs/decisions.md "Policy outcomes written lean").
 */
@Entity('policy_evaluations')
export class PolicyEvaluation {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'policy_evaluations_policy_product_key' })
  policyId: string;

  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'policy_evaluations_policy_product_key' })
  productId: string;

  /**
   * The outcome's id in answers; nothing looks a row up by it. NULL on rows
   * written since migration PolicyOutcomeIdsOnRead: answers derive it from
   * the key (policyOutcomeId).
   */
  @Column('uuid', { nullable: true })
  id: string | null;

  @Column('text')
  status: EvaluationStatus;

  @Column('text', { nullable: true })
  message: string | null;

  /** When this outcome was first found (or last found by a single-product re-evaluation). */
  @Column('timestamptz')
  evaluatedAt: Date;
}
