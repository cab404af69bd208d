import { DomainError } from '../../common/errors/domain-error';

/** The model answered JSON that is not the contract's shape: the provider side failed, not the client. */
export class AiMalformedAnswer extends DomainError {
  constructor(reason: string, logId: string) {
    super(
      502,
      'ai-malformed-answer',
      'AI Malformed Answer',
      `The AI model's answer could not be used: ${reason}. Try again; the answer is kept in the AI log.`,
      { code: 'ai_malformed_answer', log_id: logId },
    );
  }
}

export class AlertNotExplainable extends DomainError {
  constructor(alertType: string) {
    super(
      422,
      'alert-not-explainable',
      'Unprocessable Content',
      `Only anomaly and trend alerts can be explained; this alert is a ${alertType} alert.`,
      { code: 'alert_not_explainable', alert_type: alertType },
    );
  }
}
