export const RISK_CATEGORIES = [
  'data_quality',
  'privacy',
  'security',
  'compliance',
  'operational',
  'ai',
  'vendor',
  'other',
] as const;
export type RiskCategory = (typeof RISK_CATEGORIES)[number];

/** In ascending order: the position + 1 is the level (1 to 5). */
export const LIKELIHOODS = ['rare', 'unlikely', 'possible', 'likely', 'almost_certain'] as const;
export type Likelihood = (typeof LIKELIHOODS)[number];

export const IMPACTS = ['negligible', 'minor', 'moderate', 'major', 'severe'] as const;
export type Impact = (typeof IMPACTS)[number];

export const RISK_STATUSES = ['identified', 'assessed', 'mitigating', 'accepted', 'closed'] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

export const RISK_TIERS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskTier = (typeof RISK_TIERS)[number];

/** score = likelihood level x impact level, 1 to 25. */
export function riskScore(likelihood: Likelihood, impact: Impact): number {
  return (LIKELIHOODS.indexOf(likelihood) + 1) * (IMPACTS.indexOf(impact) + 1);
}

/** low 1-4, medium 5-9, high 10-16, critical 17-25. */
export function riskTier(score: number): RiskTier {
  if (score <= 4) return 'low';
  if (score <= 9) return 'medium';
  if (score <= 16) return 'high';
  return 'critical';
}

export interface RiskTemplate {
  key: string;
  name: string;
  category: RiskCategory;
  description: string;
  likelihood: Likelihood;
  impact: Impact;
  mitigation_plan: string;
}

/** Pre-built starting points, one or more per category. */
export const RISK_TEMPLATES: RiskTemplate[] = [
  {
    key: 'stale_data',
    name: 'Stale data reaches consumers',
    category: 'data_quality',
    description:
      'Pipelines fail silently and dashboards or models consume data older than their freshness SLA.',
    likelihood: 'possible',
    impact: 'moderate',
    mitigation_plan: 'Add freshness checks on every critical product and alert its owners on breach.',
  },
  {
    key: 'pii_exposure',
    name: 'Personal data exposed to unauthorised users',
    category: 'privacy',
    description: 'Personal data is readable by people without a legitimate purpose.',
    likelihood: 'unlikely',
    impact: 'severe',
    mitigation_plan:
      'Classify sensitivity on every product, restrict access by request and review grants quarterly.',
  },
  {
    key: 'credential_leak',
    name: 'Leaked source credentials',
    category: 'security',
    description: 'Connection secrets of source systems leak through code, logs or tickets.',
    likelihood: 'unlikely',
    impact: 'major',
    mitigation_plan: 'Keep secrets sealed in the platform, rotate them and use read-only database roles.',
  },
  {
    key: 'retention_breach',
    name: 'Data kept beyond its retention period',
    category: 'compliance',
    description: 'Records are retained longer than the law or the contract allows.',
    likelihood: 'possible',
    impact: 'major',
    mitigation_plan: 'Record retention periods as product attributes and enforce them with a policy.',
  },
  {
    key: 'single_owner',
    name: 'Critical product with a single point of knowledge',
    category: 'operational',
    description: 'Only one person knows how a critical product is built and run.',
    likelihood: 'likely',
    impact: 'moderate',
    mitigation_plan: 'Assign a second owner or a steward and document the product.',
  },
  {
    key: 'model_bias',
    name: 'Biased model outcomes',
    category: 'ai',
    description: 'An AI system produces systematically unfair outcomes for a group of people.',
    likelihood: 'possible',
    impact: 'major',
    mitigation_plan: 'Evaluate fairness metrics before release and monitor them in production.',
  },
  {
    key: 'vendor_outage',
    name: 'Vendor outage',
    category: 'vendor',
    description: 'A third-party data provider becomes unavailable or changes its contract.',
    likelihood: 'possible',
    impact: 'moderate',
    mitigation_plan: 'Document vendor dependencies and keep a fallback source or cached copy.',
  },
  {
    key: 'undocumented',
    name: 'Undocumented data products',
    category: 'other',
    description: 'Products without descriptions are misused or duplicated.',
    likelihood: 'likely',
    impact: 'minor',
    mitigation_plan: 'Require a description through a documentation policy.',
  },
];
