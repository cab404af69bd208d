import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import {
  EnumField,
  QueryIntField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { AI_PROVIDERS } from '../entities/ai-config.entity';
import { AI_LOG_STATUSES } from '../entities/ai-log.entity';
import { FEATURE_PATTERN } from './model-routing.dto';
import { PromptMessage } from './prompts.dto';

export class ListAiLogsQuery extends PageQuery {
  @EnumField(AI_PROVIDERS, { optional: true, enumName: 'AiProvider' })
  provider?: string;

  @EnumField(AI_LOG_STATUSES, { optional: true, enumName: 'AiLogStatus' })
  status?: string;

  @StringField({ optional: true, max: 63, pattern: FEATURE_PATTERN })
  feature?: string;
}

export class UsageQuery {
  @QueryIntField({ min: 1, max: 366, default: 30, description: 'How many UTC days back, today included.' })
  days?: number = 30;
}

export class LogIdParams {
  @UuidField()
  log_id: string;
}

export class GuardrailActionResponse {
  @ApiProperty({
    enum: [
      'redact_email',
      'redact_phone',
      'redact_card',
      'redact_iban',
      'redact_secret',
      'injection_flagged',
      'injection_blocked',
    ],
  })
  kind: string;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ required: false, description: 'The untrusted variable, for injection markers.' })
  variable?: string;
}

export class AiLogResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() feature: string;
  @ApiProperty() provider: string;
  @ApiProperty() model: string;
  @ApiProperty({ nullable: true, type: String }) prompt_key: string | null;
  @ApiProperty({ nullable: true, type: 'integer', description: '0 is the code default.' }) prompt_version:
    number | null;
  @ApiProperty({ enum: AI_LOG_STATUSES, enumName: 'AiLogStatus' }) status: string;
  @ApiProperty({ type: 'integer' }) input_tokens: number;
  @ApiProperty({ type: 'integer' }) output_tokens: number;
  @ApiProperty({ description: 'USD; 0 for models missing from the price table.' }) cost_usd: number;
  @ApiProperty({ type: 'integer', description: 'From entering the gateway to the end of this attempt.' })
  latency_ms: number;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) user_id: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) space_id: string | null;
  @ApiProperty({ type: GuardrailActionResponse, isArray: true }) guardrail_actions: GuardrailActionResponse[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The workflow run of the call.' })
  run_id: string | null;
  @ApiProperty({ type: 'integer', description: '1, or 2 for the call to a fallback profile.' })
  attempt: number;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The log this call replayed.' })
  replay_of: string | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
}

export class AiLogDetailResponse extends AiLogResponse {
  @ApiProperty({ type: PromptMessage, isArray: true, description: 'As sent, after redaction.' })
  messages: PromptMessage[];
  @ApiProperty({ nullable: true, type: String, description: 'The answer, redacted.' }) response:
    string | null;
}

export class UsageRowResponse {
  @ApiProperty({ format: 'date' }) date: string;
  @ApiProperty() model: string;
  @ApiProperty() feature: string;
  @ApiProperty() provider: string;
  @ApiProperty({ type: 'integer' }) calls: number;
  @ApiProperty({ type: 'integer', description: 'Calls that ended in error, blocked or over budget.' })
  failures: number;
  @ApiProperty({ type: 'integer' }) input_tokens: number;
  @ApiProperty({ type: 'integer' }) output_tokens: number;
  @ApiProperty({ type: 'integer' }) total_tokens: number;
  @ApiProperty() cost_usd: number;
}

export class UsageTotalsResponse {
  @ApiProperty({ type: 'integer' }) calls: number;
  @ApiProperty({ type: 'integer' }) failures: number;
  @ApiProperty({ type: 'integer' }) input_tokens: number;
  @ApiProperty({ type: 'integer' }) output_tokens: number;
  @ApiProperty({ type: 'integer' }) total_tokens: number;
  @ApiProperty() cost_usd: number;
}

export class UsageResponse {
  @ApiProperty({ type: 'integer' }) days: number;
  @ApiProperty({ format: 'date' }) since: string;
  @ApiProperty({ type: UsageRowResponse, isArray: true, description: 'Newest day first.' })
  items: UsageRowResponse[];
  @ApiProperty({ type: UsageTotalsResponse }) totals: UsageTotalsResponse;
}

export class PersonUsageResponse extends UsageTotalsResponse {
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Null for calls made without a user.',
  })
  user_id: string | null;
}

export class PeopleUsageResponse {
  @ApiProperty({ type: 'integer' }) days: number;
  @ApiProperty({ type: PersonUsageResponse, isArray: true, description: 'Most tokens first.' })
  items: PersonUsageResponse[];
}

export class GuardrailKindImpact {
  @ApiProperty() kind: string;
  @ApiProperty({ type: 'integer', description: 'Calls with this action.' }) calls: number;
  @ApiProperty({ type: 'integer', description: 'Occurrences replaced or found.' }) occurrences: number;
}

export class GuardrailFeatureImpact {
  @ApiProperty() feature: string;
  @ApiProperty({ type: 'integer' }) calls: number;
  @ApiProperty({ type: 'integer' }) guarded_calls: number;
  @ApiProperty({ type: 'integer' }) blocked: number;
  @ApiProperty({ description: 'guarded_calls / calls, from 0 to 1.' }) guarded_rate: number;
}

export class GuardrailImpactResponse {
  @ApiProperty({ type: 'integer' }) days: number;
  @ApiProperty({ type: 'integer' }) calls: number;
  @ApiProperty({ type: 'integer', description: 'Calls on which a guardrail acted.' }) guarded_calls: number;
  @ApiProperty({ type: 'integer' }) blocked: number;
  @ApiProperty({ description: 'guarded_calls / calls, from 0 to 1.' }) guarded_rate: number;
  @ApiProperty({ type: GuardrailKindImpact, isArray: true }) by_kind: GuardrailKindImpact[];
  @ApiProperty({ type: GuardrailFeatureImpact, isArray: true }) by_feature: GuardrailFeatureImpact[];
}

export class ReplayResponse {
  @ApiProperty({ format: 'uuid', description: 'The new log entry.' }) log_id: string;
  @ApiProperty({ format: 'uuid' }) replay_of: string;
  @ApiProperty({ format: 'uuid' }) run_id: string;
  @ApiProperty() text: string;
  @ApiProperty() provider: string;
  @ApiProperty() model: string;
  @ApiProperty({ type: 'integer' }) input_tokens: number;
  @ApiProperty({ type: 'integer' }) output_tokens: number;
  @ApiProperty() cost_usd: number;
}
