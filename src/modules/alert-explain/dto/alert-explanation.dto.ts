import { ApiProperty } from '@nestjs/swagger';
import { UuidField } from '../../../common/validation/field.decorators';

export class AlertIdParams {
  @UuidField({ description: 'The alert id.' })
  id: string;
}

export class HypothesisResponse {
  @ApiProperty({ description: 'A likely cause of the alert.' }) cause: string;

  @ApiProperty({ type: 'number', minimum: 0, maximum: 1 }) confidence: number;

  @ApiProperty({ type: String, isArray: true, description: 'Facts from the context that support it.' })
  evidence: string[];
}

export class AlertExplanationResponse {
  @ApiProperty({
    type: HypothesisResponse,
    isArray: true,
    description: 'Most confident first, at most five.',
  })
  hypotheses: HypothesisResponse[];

  @ApiProperty({ description: "True when served from the alert's metadata without calling the model." })
  cached: boolean;

  @ApiProperty({ format: 'date-time', description: 'When the explanation was generated.' })
  generated_at: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The AI log entry of the generating call: give it as `log_id` with `/ai-feedback`.',
  })
  log_id: string | null;
}
