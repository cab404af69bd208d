import { PolicyResponse } from './dto/policy.dto';
import type { Policy } from './entities/policy.entity';

export function toPolicyResponse(policy: Policy): PolicyResponse {
  return {
    id: policy.id,
    space_id: policy.spaceId,
    name: policy.name,
    description: policy.description,
    policy_type: policy.policyType,
    rule_expression: policy.ruleExpression,
    severity: policy.severity,
    is_enabled: policy.isEnabled,
    is_archived: policy.isArchived,
    archived_at: policy.archivedAt?.toISOString() ?? null,
    last_evaluated_at: policy.lastEvaluatedAt?.toISOString() ?? null,
    created_by: policy.createdBy,
    created_at: policy.createdAt.toISOString(),
    updated_at: policy.updatedAt.toISOString(),
  };
}
