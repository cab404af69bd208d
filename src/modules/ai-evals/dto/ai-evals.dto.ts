import { ApiProperty } from '@nestjs/swagger';
import { ArrayMinSize } from 'class-validator';
import { StringArrayField, UuidField } from '../../../common/validation/field.decorators';
import { EVAL_RUN_STATUSES } from '../entities/ai-eval-run.entity';

export class StartEvalRunDto {
  @ArrayMinSize(1)
  @StringArrayField({
    optional: true,
    maxItems: 50,
    itemMax: 100,
    description: 'Only the cases of these features (422 naming an unknown one). All cases when left out.',
  })
  features?: string[];
}

export class EvalRunParams {
  @UuidField({ description: 'The eval run id.' })
  run_id: string;
}

export class EvalRunResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: EVAL_RUN_STATUSES, enumName: 'AiEvalRunStatus' }) status: string;
  @ApiProperty({ type: String, isArray: true, description: 'The features whose cases run.' })
  features: string[];
  @ApiProperty({ type: 'integer', description: 'Cases in the run.' }) total: number;
  @ApiProperty({ type: 'integer', description: 'Cases finished so far.' }) done: number;
  @ApiProperty({ type: 'integer' }) passed: number;
  @ApiProperty({ type: 'integer' }) failed: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'passed / done; null before any.',
  })
  pass_rate: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the run failed as a whole.' }) error:
    string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The gateway workflow run of its AI calls.',
  })
  workflow_run_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) started_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at: string | null;
}

export class EvalCaseResultResponse {
  @ApiProperty({ example: 'alert_explain.row_count_drop' }) case_id: string;
  @ApiProperty() feature: string;
  @ApiProperty() description: string;
  @ApiProperty() passed: boolean;
  @ApiProperty({ type: String, isArray: true, description: 'The expected properties that did not hold.' })
  failures: string[];
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The AI log entry of the case.' })
  log_id: string | null;
  @ApiProperty({ type: 'integer' }) latency_ms: number;
}

export class EvalRunDetailResponse extends EvalRunResponse {
  @ApiProperty({
    type: EvalCaseResultResponse,
    isArray: true,
    description: 'In suite order; finished cases only.',
  })
  results: EvalCaseResultResponse[];
}
