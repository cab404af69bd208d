import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { AlertExplainService } from './alert-explain.service';
import { AlertExplanationResponse, AlertIdParams } from './dto/alert-explanation.dto';

@ApiTags('Quality alerts')
@Controller('alerts')
export class AlertExplainController {
  constructor(private readonly explainer: AlertExplainService) {}

  @Post(':id/explain')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'explainAlert',
    summary: 'AI root-cause hypotheses for an anomaly or trend alert (read access to its space)',
    description:
      "Any member of the alert's space (404 for anyone else, as for a missing alert). Only `anomaly` and `trend` alerts " +
      '(422 for other types). The context sent through the AI gateway (feature and prompt `alert_explain`; routed, ' +
      'budgeted, redacted and logged there) is the alert, its product, the products directly upstream and downstream, ' +
      "the product's 10 most recent check runs and its 5 most recent incidents; all of it is treated as untrusted text. " +
      "The answer is kept in the alert's `metadata.ai_explanation` and served from there (`cached: true`, no model call) " +
      'until the alert changes: its status, severity, message, incident, other metadata or `updated_at` (acknowledging ' +
      'or resolving it, for example). `log_id` names the AI log entry of the generating call, for `/ai-feedback`. ' +
      'A model answer that is not the `{hypotheses: [{cause, confidence 0..1, evidence: [string]}]}` shape (at most five) ' +
      'answers 502 `ai_malformed_answer`; a failing provider 502, a silent one 504, no configured provider 503, an ' +
      'exhausted budget 429, input blocked by the injection guardrail 422: problem details with the `log_id` where one exists.',
  })
  @ApiOkResponse({ type: AlertExplanationResponse })
  @ApiProblems(404, 422, 429, 502, 503, 504)
  explain(@CurrentActor() actor: Actor, @Param() params: AlertIdParams): Promise<AlertExplanationResponse> {
    return this.explainer.explain(actor, params.id);
  }
}
