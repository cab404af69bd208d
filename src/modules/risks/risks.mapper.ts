import type { RiskEventData } from '../../platform/outbox/event-map';
import { RiskResponse } from './dto/risk.dto';
import type { Risk } from './entities/risk.entity';
import { IMPACTS, LIKELIHOODS } from './risk-scoring';

export function toRiskResponse(risk: Risk, productIds: string[]): RiskResponse {
  return {
    id: risk.id,
    space_id: risk.spaceId,
    title: risk.title,
    description: risk.description,
    category: risk.category,
    likelihood: risk.likelihood,
    impact: risk.impact,
    score: risk.score,
    tier: risk.tier,
    status: risk.status,
    mitigation_plan: risk.mitigationPlan,
    owner_id: risk.ownerId,
    review_date: risk.reviewDate,
    product_ids: productIds,
    created_by: risk.createdBy,
    created_at: risk.createdAt.toISOString(),
    updated_at: risk.updatedAt.toISOString(),
  };
}

export function riskEventData(risk: RiskResponse): RiskEventData {
  return {
    risk_id: risk.id,
    space_id: risk.space_id,
    title: risk.title,
    category: risk.category,
    likelihood: risk.likelihood,
    impact: risk.impact,
    score: risk.score,
    tier: risk.tier,
    status: risk.status,
    product_ids: risk.product_ids,
  };
}

/** All 25 cells, likelihood-major in ascending levels. */
export const HEAT_MAP_CELLS: readonly { likelihood: string; impact: string }[] = LIKELIHOODS.flatMap(
  (likelihood) => IMPACTS.map((impact) => ({ likelihood, impact })),
);
