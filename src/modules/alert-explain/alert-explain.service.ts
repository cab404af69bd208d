import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { AiGatewayService } from '../ai/ai-gateway.service';
import { AlertExplainContext, AlertExplanationsService } from '../quality/alert-explanations.service';
import { AiMalformedAnswer, AlertNotExplainable } from './alert-explain.errors';
import { AlertExplanationResponse } from './dto/alert-explanation.dto';
import { parseHypotheses } from './hypotheses';

export const ALERT_EXPLAIN_FEATURE = 'alert_explain';
/** The alert types an explanation is offered for (decisions section 10). */
export const EXPLAINABLE_ALERT_TYPES: readonly string[] = ['anomaly', 'trend'];
/** Every variable holds text that users or monitoring tools wrote, so all are checked for injection. */
const UNTRUSTED = ['alert', 'product', 'lineage', 'recent_runs', 'incidents'];

/** The prompt variables of `alert_explain` built from an alert's context (also used by the evals). */
export function alertExplainVariables(
  context: Omit<AlertExplainContext, 'fingerprint' | 'cached'>,
): Record<string, unknown> {
  const { alert } = context;
  return {
    alert: {
      type: alert.alert_type,
      severity: alert.severity,
      status: alert.status,
      message: alert.message,
      metadata: alert.metadata,
      created_at: alert.created_at,
    },
    product: context.product ?? { note: 'The product is not readable.' },
    lineage: {
      upstream: context.lineage.upstream.map((p) => p.name),
      downstream: context.lineage.downstream.map((p) => p.name),
    },
    recent_runs: context.recent_runs,
    incidents: context.incidents.map(({ id: _id, ...incident }) => incident),
  };
}

/** AI root-cause hypotheses for anomaly and trend alerts, cached in the alert until it changes. */
@Injectable()
export class AlertExplainService {
  constructor(
    private readonly alerts: AlertExplanationsService,
    private readonly gateway: AiGatewayService,
  ) {}

  async explain(actor: Actor, alertId: string): Promise<AlertExplanationResponse> {
    const context = await this.alerts.context(actor, alertId);
    if (!EXPLAINABLE_ALERT_TYPES.includes(context.alert.alert_type)) {
      throw new AlertNotExplainable(context.alert.alert_type);
    }
    const { cached } = context;
    if (cached && cached.fingerprint === context.fingerprint) {
      const parsed = parseHypotheses({ hypotheses: cached.hypotheses });
      if ('hypotheses' in parsed) {
        return {
          hypotheses: parsed.hypotheses,
          cached: true,
          generated_at: cached.generated_at,
          log_id: cached.log_id,
        };
      }
    }
    const spaceId = context.alert.space_id;
    const result = await this.gateway.withRun(ALERT_EXPLAIN_FEATURE, actor.userId, spaceId, (runId) =>
      this.gateway.complete({
        feature: ALERT_EXPLAIN_FEATURE,
        promptKey: 'alert_explain',
        variables: alertExplainVariables(context),
        userId: actor.userId,
        spaceId,
        runId,
        untrustedVariables: UNTRUSTED,
        responseFormat: 'json',
      }),
    );
    const parsed = parseHypotheses(result.json);
    if ('error' in parsed) throw new AiMalformedAnswer(parsed.error, result.logId);
    const generatedAt = new Date().toISOString();
    await this.alerts.store(alertId, {
      fingerprint: context.fingerprint,
      generated_at: generatedAt,
      log_id: result.logId,
      hypotheses: parsed.hypotheses,
    });
    return { hypotheses: parsed.hypotheses, cached: false, generated_at: generatedAt, log_id: result.logId };
  }
}
