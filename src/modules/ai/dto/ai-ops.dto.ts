import { ApiProperty } from '@nestjs/swagger';
import { PageQuery } from '../../../common/http/page.dto';
import { EnumField, StringField, UuidField } from '../../../common/validation/field.decorators';
import { AiLogResponse } from './ai-logs.dto';
import { FEATURE_PATTERN } from './model-routing.dto';

const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;

export class ListWorkflowRunsQuery extends PageQuery {
  @StringField({ optional: true, max: 63, pattern: FEATURE_PATTERN })
  feature?: string;

  @EnumField(RUN_STATUSES, { optional: true, enumName: 'AiRunStatus' })
  status?: string;
}

export class RunIdParams {
  @UuidField()
  run_id: string;
}

export class OverviewWindow {
  @ApiProperty({ type: 'integer' }) calls: number;
  @ApiProperty({ type: 'integer', description: 'Calls that ended in a provider error.' }) failures: number;
  @ApiProperty({ type: 'integer' }) blocked: number;
  @ApiProperty({ type: 'integer' }) budget_exceeded: number;
  @ApiProperty({ type: 'integer', description: 'Calls on which a guardrail acted.' }) guarded_calls: number;
  @ApiProperty({ type: 'integer' }) input_tokens: number;
  @ApiProperty({ type: 'integer' }) output_tokens: number;
  @ApiProperty() cost_usd: number;
  @ApiProperty({ type: 'integer' }) avg_latency_ms: number;
  @ApiProperty({ description: 'failures / calls, from 0 to 1.' }) failure_rate: number;
}

export class ProviderHealthResponse {
  @ApiProperty() configured: boolean;
  @ApiProperty({ enum: ['database', 'environment'], nullable: true, type: String }) source: string | null;
  @ApiProperty({ nullable: true, type: String }) provider: string | null;
  @ApiProperty({ nullable: true, type: String }) model: string | null;
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({
    enum: ['healthy', 'degraded', 'down', 'unknown'],
    description:
      'From the latest 20 provider calls (test-connection included): down when all failed, degraded above 20% failures.',
  })
  health: string;
  @ApiProperty({ type: 'integer' }) sampled_calls: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_success_at: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_error_at: string | null;
  @ApiProperty({ nullable: true, type: String }) last_error: string | null;
}

export class BudgetUseResponse {
  @ApiProperty() entry_point_id: string;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Used / limit (0 to 1 and beyond); null without that limit.',
  })
  daily_tokens_ratio: number | null;
  @ApiProperty({ nullable: true, type: Number }) monthly_tokens_ratio: number | null;
  @ApiProperty({ nullable: true, type: Number }) daily_usd_ratio: number | null;
  @ApiProperty({ nullable: true, type: Number }) monthly_usd_ratio: number | null;
}

export class AiOverviewResponse {
  @ApiProperty({ format: 'date-time' }) generated_at: string;
  @ApiProperty({ type: ProviderHealthResponse }) provider: ProviderHealthResponse;
  @ApiProperty({ type: OverviewWindow, description: 'The last 24 hours, from the logs.' })
  last_24h: OverviewWindow;
  @ApiProperty({
    type: OverviewWindow,
    description: 'The last 7 UTC days (today included), from the daily rollups.',
  })
  last_7d: OverviewWindow;
  @ApiProperty({ type: BudgetUseResponse, isArray: true }) budgets: BudgetUseResponse[];
  @ApiProperty({
    type: String,
    isArray: true,
    description: 'What an administrator should look at, as sentences.',
  })
  remediation: string[];
}

export class WorkflowRunResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() feature: string;
  @ApiProperty({ enum: RUN_STATUSES, enumName: 'AiRunStatus' }) status: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) user_id: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) space_id: string | null;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) finished_at: string | null;
  @ApiProperty({ nullable: true, type: 'integer' }) duration_ms: number | null;
  @ApiProperty({ type: 'integer', description: 'Gateway calls (attempts) in the run.' }) call_count: number;
  @ApiProperty({ type: 'integer' }) total_tokens: number;
  @ApiProperty() cost_usd: number;
}

export class SpanResponse {
  @ApiProperty({ enum: ['route', 'prompt', 'budget', 'guardrails', 'provider', 'log'] }) name: string;
  @ApiProperty() status: string;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) detail: Record<string, unknown>;
}

export class RunCallResponse extends AiLogResponse {
  @ApiProperty({ type: SpanResponse, isArray: true, description: 'The steps of this call, in order.' })
  spans: SpanResponse[];
}

export class WorkflowRunDetailResponse extends WorkflowRunResponse {
  @ApiProperty({
    type: RunCallResponse,
    isArray: true,
    description: 'The gateway calls with their spans, in order.',
  })
  calls: RunCallResponse[];
}
