import type { PolicySeverity, PolicyType } from './entities/policy.entity';

export interface PolicyTemplate {
  key: string;
  name: string;
  description: string;
  policy_type: PolicyType;
  rule_expression: string;
  severity: PolicySeverity;
}

/** Ready-made rules; each is valid CEL over `product` (a unit test checks them). */
export const POLICY_TEMPLATES: PolicyTemplate[] = [
  {
    key: 'has_owner',
    name: 'Every product has an owner',
    description: 'Someone is accountable for each data product.',
    policy_type: 'ownership',
    rule_expression: 'size(product.owners) > 0',
    severity: 'high',
  },
  {
    key: 'has_steward',
    name: 'Critical products have a steward',
    description: 'Products classified as critical also have a data steward.',
    policy_type: 'ownership',
    rule_expression: 'product.criticality != "critical" || size(product.stewards) > 0',
    severity: 'medium',
  },
  {
    key: 'documented',
    name: 'Products are documented',
    description: 'A description of at least 20 characters.',
    policy_type: 'documentation',
    rule_expression: 'product.description != null && size(product.description) >= 20',
    severity: 'medium',
  },
  {
    key: 'classified',
    name: 'Products are classified',
    description: 'Every product has a sensitivity level and a criticality level.',
    policy_type: 'classification',
    rule_expression: 'product.sensitivity != null && product.criticality != null',
    severity: 'high',
  },
  {
    key: 'freshness_sla',
    name: 'Datasets declare a freshness SLA',
    description: 'Datasets state how fresh their data must be.',
    policy_type: 'data_quality',
    rule_expression: 'product.product_type != "dataset" || product.sla_freshness_minutes != null',
    severity: 'low',
  },
  {
    key: 'no_open_incidents',
    name: 'No open quality incidents',
    description: 'The product has no open or investigating incident.',
    policy_type: 'data_quality',
    rule_expression: 'product.open_incident_count == 0',
    severity: 'medium',
  },
  {
    key: 'pii_tagged_restricted',
    name: 'PII is restricted',
    description: 'Products tagged `pii` carry the `restricted` sensitivity level.',
    policy_type: 'privacy',
    rule_expression: '!("pii" in product.tags) || product.sensitivity == "restricted"',
    severity: 'critical',
  },
  {
    key: 'ai_system_reviewed',
    name: 'AI systems have a named owner and a domain',
    description: 'AI systems are owned and assigned to a business domain.',
    policy_type: 'ai_governance',
    rule_expression:
      'product.product_type != "ai_system" || (size(product.owners) > 0 && product.domain != null)',
    severity: 'high',
  },
  {
    key: 'lifecycle_status',
    name: 'Products have a maintenance status',
    description: 'Every product states whether it is maintained.',
    policy_type: 'lifecycle',
    rule_expression: 'product.maintenance_status != null',
    severity: 'low',
  },
];
