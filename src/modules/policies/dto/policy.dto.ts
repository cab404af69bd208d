import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  BooleanField,
  EnumField,
  QueryBooleanField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { EVALUATION_STATUSES } from '../entities/policy-evaluation.entity';
import { POLICY_SEVERITIES, POLICY_TYPES } from '../entities/policy.entity';

const RULE_DOC =
  'A CEL expression over `product` that evaluates to a boolean (`true` = compliant). Fields: `id`, `name`, ' +
  '`description`, `product_type`, `domain`, `tags`, `criticality`, `sensitivity`, `maintenance_status` (nullable ' +
  'fields are null when unset), `owners` and `stewards` (lists of `{id, email, full_name}`), `sla_freshness_minutes`, ' +
  '`attributes` (the free JSON object), `created_at`, `updated_at` (timestamps) and `open_incident_count` (open or ' +
  'investigating incidents holding an alert of the product). Type-checked on create and update: a syntax error, an ' +
  'unknown field or a non-boolean rule is 422 naming the position.';

export class PolicyPathParams extends SlugParams {
  @UuidField({ description: 'The policy id.' })
  id: string;
}

export class ProductViolationsPathParams extends SlugParams {
  @UuidField({ description: 'The product id.' })
  pid: string;
}

export class CreatePolicyDto {
  @TextField({ max: 200, description: 'Unique in the space, compared case-insensitively (409).' })
  name: string;

  @StringField({ optional: true, nullable: true, max: 10_000 })
  description?: string | null;

  @EnumField(POLICY_TYPES, { enumName: 'PolicyType' })
  policy_type: string;

  @TextField({ max: 5_000, description: RULE_DOC, example: 'size(product.owners) > 0' })
  rule_expression: string;

  @EnumField(POLICY_SEVERITIES, { enumName: 'PolicySeverity' })
  severity: string;

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;
}

/**
 * Only the fields given change. `name` and `rule_expression` are declared here: on create they are required
 * and documented with the uniqueness rule and an example; `is_enabled` documents a default that must not
 * apply on update.
 */
export class UpdatePolicyDto extends UpdateType(CreatePolicyDto, [
  'description',
  'policy_type',
  'severity',
] as const) {
  @TextField({ optional: true, max: 200 })
  name?: string;

  @TextField({ optional: true, max: 5_000, description: RULE_DOC })
  rule_expression?: string;

  @BooleanField({ optional: true })
  is_enabled?: boolean;
}

export class DryRunPolicyDto {
  @TextField({ max: 5_000, description: RULE_DOC })
  rule_expression: string;
}

export class ListPoliciesQuery extends PageQuery {
  @QueryBooleanField({ default: false, description: 'Include archived policies.' })
  include_archived?: boolean;

  @EnumField(POLICY_TYPES, { optional: true, enumName: 'PolicyType' })
  policy_type?: string;

  @QueryBooleanField()
  is_enabled?: boolean;
}

export class ListEvaluationsQuery extends PageQuery {
  @EnumField(EVALUATION_STATUSES, { optional: true, enumName: 'EvaluationStatus' })
  status?: string;
}

export class PolicyResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ enum: POLICY_TYPES, enumName: 'PolicyType' }) policy_type: string;
  @ApiProperty() rule_expression: string;
  @ApiProperty({ enum: POLICY_SEVERITIES, enumName: 'PolicySeverity' }) severity: string;
  @ApiProperty() is_enabled: boolean;
  @ApiProperty() is_archived: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) archived_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_evaluated_at: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class PolicyPageResponse {
  @ApiProperty({ type: PolicyResponse, isArray: true }) items: PolicyResponse[];
  @ApiProperty({ type: 'integer' }) total: number;
}

export class EvaluationResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) policy_id: string;
  @ApiProperty({ format: 'uuid' }) product_id: string;
  @ApiProperty() product_name: string;
  @ApiProperty({ enum: EVALUATION_STATUSES, enumName: 'EvaluationStatus' }) status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why it is not compliant, or the run-time error.',
  })
  message: string | null;
  @ApiProperty({ format: 'date-time' }) evaluated_at: string;
}

export class EvaluationPageResponse {
  @ApiProperty({ type: EvaluationResponse, isArray: true }) items: EvaluationResponse[];
  @ApiProperty({ type: 'integer' }) total: number;
}

export class EvaluateResponse {
  @ApiProperty({ format: 'uuid' }) policy_id: string;
  @ApiProperty({ type: 'integer' }) total_products_evaluated: number;
  @ApiProperty({ type: 'integer' }) compliant: number;
  @ApiProperty({ type: 'integer' }) violations_found: number;
  @ApiProperty({ type: 'integer', description: 'Products for which the rule failed at run time.' })
  errors: number;
  @ApiProperty({ format: 'date-time' }) evaluated_at: string;
}

export class EvaluateAllResponse {
  @ApiProperty({ type: 'integer' }) policies_evaluated: number;
  @ApiProperty({ type: 'integer', description: 'Products of the space (each checked against every policy).' })
  total_products_evaluated: number;
  @ApiProperty({ type: 'integer', description: 'Non-compliant (policy, product) pairs.' })
  violations_found: number;
  @ApiProperty({ type: 'integer', description: '(policy, product) pairs whose rule failed at run time.' })
  errors: number;
  @ApiProperty({ format: 'date-time' }) evaluated_at: string;
}

export class SeveritySummary {
  @ApiProperty({ type: 'integer', description: 'Enabled, unarchived policies of this severity.' })
  policies: number;
  @ApiProperty({ type: 'integer', description: 'Their non-compliant products.' }) violations: number;
}

export class BySeverity {
  @ApiProperty({ type: SeveritySummary }) critical: SeveritySummary;
  @ApiProperty({ type: SeveritySummary }) high: SeveritySummary;
  @ApiProperty({ type: SeveritySummary }) medium: SeveritySummary;
  @ApiProperty({ type: SeveritySummary }) low: SeveritySummary;
}

export class PolicyCompliance {
  @ApiProperty({ format: 'uuid' }) policy_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: POLICY_SEVERITIES, enumName: 'PolicySeverity' }) severity: string;
  @ApiProperty({ type: 'integer' }) compliant: number;
  @ApiProperty({ type: 'integer' }) violations: number;
}

export class ComplianceSummaryResponse {
  @ApiProperty({ type: 'integer', description: 'Unarchived policies.' }) total_policies: number;
  @ApiProperty({ type: 'integer', description: 'Enabled, unarchived policies.' }) enabled_policies: number;
  @ApiProperty({ type: 'integer' }) total_products: number;
  @ApiProperty({ type: 'integer', description: 'Products that violate no enabled policy.' })
  compliant_products: number;
  @ApiProperty({ type: 'integer', description: 'Products that violate at least one enabled policy.' })
  non_compliant_products: number;
  @ApiProperty({
    description:
      'compliant_products / total_products as a percentage (0 to 100, two decimals); 100 for an empty space.',
  })
  compliance_rate: number;
  @ApiProperty({ type: BySeverity }) by_severity: BySeverity;
  @ApiProperty({ type: PolicyCompliance, isArray: true }) by_policy: PolicyCompliance[];
}

export class ViolationResponse {
  @ApiProperty({ format: 'uuid' }) policy_id: string;
  @ApiProperty() policy_name: string;
  @ApiProperty({ enum: POLICY_SEVERITIES, enumName: 'PolicySeverity' }) severity: string;
  @ApiProperty({ type: String, nullable: true }) message: string | null;
  @ApiProperty({ format: 'date-time' }) evaluated_at: string;
}

export class PolicyTemplateResponse {
  @ApiProperty() key: string;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: POLICY_TYPES, enumName: 'PolicyType' }) policy_type: string;
  @ApiProperty() rule_expression: string;
  @ApiProperty({ enum: POLICY_SEVERITIES, enumName: 'PolicySeverity' }) severity: string;
}

export class DryRunFinding {
  @ApiProperty({ format: 'uuid' }) product_id: string;
  @ApiProperty() product_name: string;
  @ApiProperty({ enum: ['non_compliant', 'error'] }) status: string;
  @ApiProperty() message: string;
}

export class DryRunResponse {
  @ApiProperty({ type: 'integer' }) total_products_evaluated: number;
  @ApiProperty({ type: 'integer' }) compliant: number;
  @ApiProperty({ type: 'integer' }) violations_found: number;
  @ApiProperty({ type: 'integer' }) errors: number;
  @ApiProperty({
    type: DryRunFinding,
    isArray: true,
    description: 'Violations and errors in product name order, at most 1000.',
  })
  findings: DryRunFinding[];
  @ApiProperty({ description: 'True when more than 1000 products would violate or fail.' })
  truncated: boolean;
}
