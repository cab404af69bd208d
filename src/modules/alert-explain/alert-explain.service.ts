import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { AiGatewayService } from '../ai/ai-gateway.service';
import { AlertExplanationsService } from '../quality/alert-explanations.service';
import {
  ALERT_EXPLAIN_FEATURE,
  ALERT_EXPLAIN_UNTRUSTED,
  alertExplainVariables,
  EXPLAINABLE_ALERT_TYPES,
} from './alert-explain-prompt';
import { AiMalformedAnswer, AlertNotExplainable } from './alert-explain.errors';
import { AlertExplanationResponse } from './dto/alert-explanation.dto';
import { parseHypotheses } from './hypotheses';

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
        untrustedVariables: ALERT_EXPLAIN_UNTRUSTED,
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
