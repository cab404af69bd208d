import type { AuthoringTaskResponse, ConsentResponse, EvidenceResponse } from './dto/authoring.dto';
import type { AuthoringTask } from './entities/authoring-task.entity';
import type { ConsentStatus, WebSearchConsent } from './entities/web-search-consent.entity';
import type { WebSearchEvidence } from './entities/web-search-evidence.entity';
import { MAX_CALLS_PER_TASK } from './web-research-rules';

export function toTaskResponse(task: AuthoringTask, callsUsed: number): AuthoringTaskResponse {
  return {
    id: task.id,
    space_id: task.spaceId,
    title: task.title,
    definition_id: task.definitionId,
    parent_task_id: task.parentTaskId,
    root_task_id: task.rootTaskId,
    delegated: task.delegated,
    calls_used: callsUsed,
    calls_remaining: Math.max(0, MAX_CALLS_PER_TASK - callsUsed),
    created_by: task.createdBy,
    created_at: task.createdAt.toISOString(),
  };
}

/** A pending consent past its time reads as expired, whether or not a write has recorded it yet. */
export function effectiveConsentStatus(consent: WebSearchConsent, now: number): ConsentStatus {
  return consent.status === 'pending' && consent.expiresAt.getTime() <= now ? 'expired' : consent.status;
}

export function toConsentResponse(consent: WebSearchConsent, now: number): ConsentResponse {
  return {
    id: consent.id,
    status: effectiveConsentStatus(consent, now),
    scope: {
      user_id: consent.userId,
      space_id: consent.spaceId,
      definition_id: consent.definitionId,
      root_task_id: consent.rootTaskId,
      binding_id: consent.bindingId,
      provider_id: consent.providerId,
    },
    task_id: consent.taskId,
    expires_at: consent.expiresAt.toISOString(),
    decided_at: consent.decidedAt?.toISOString() ?? null,
    created_at: consent.createdAt.toISOString(),
  };
}

export function toEvidenceResponse(evidence: WebSearchEvidence): EvidenceResponse {
  return {
    id: evidence.id,
    task_id: evidence.taskId,
    query: evidence.query,
    max_results: evidence.maxResults,
    results: evidence.results,
    tool_name: evidence.toolName,
    binding_id: evidence.bindingId,
    provider_id: evidence.providerId,
    run_id: evidence.runId,
    created_at: evidence.createdAt.toISOString(),
  };
}
