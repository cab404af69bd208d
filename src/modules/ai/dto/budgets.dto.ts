import { ApiProperty } from '@nestjs/swagger';
import { IntField, NumberField, StringField } from '../../../common/validation/field.decorators';
import { FEATURE_PATTERN } from './model-routing.dto';

export class EntryPointParams {
  @StringField({
    min: 1,
    max: 63,
    pattern: FEATURE_PATTERN,
    description: '`global` (all AI calls together) or a snake_case feature name.',
  })
  entry_point_id: string;
}

export class PutBudgetDto {
  @IntField({
    optional: true,
    nullable: true,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    description: 'Tokens (input + output) per UTC day.',
  })
  daily_tokens?: number | null;

  @IntField({
    optional: true,
    nullable: true,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    description: 'Tokens per calendar month (UTC).',
  })
  monthly_tokens?: number | null;

  @NumberField({
    optional: true,
    nullable: true,
    min: 0,
    max: 1_000_000_000,
    description: 'USD per UTC day.',
  })
  daily_usd?: number | null;

  @NumberField({
    optional: true,
    nullable: true,
    min: 0,
    max: 1_000_000_000,
    description: 'USD per calendar month (UTC).',
  })
  monthly_usd?: number | null;
}

export class BudgetUsageResponse {
  @ApiProperty({ type: 'integer' }) day_tokens: number;
  @ApiProperty({ type: 'integer' }) month_tokens: number;
  @ApiProperty() day_usd: number;
  @ApiProperty() month_usd: number;
}

export class BudgetResponse {
  @ApiProperty() entry_point_id: string;
  @ApiProperty({
    enum: ['database', 'environment'],
    description: 'environment: the global defaults from AI_BUDGET_* variables.',
  })
  source: string;
  @ApiProperty({ nullable: true, type: 'integer' }) daily_tokens: number | null;
  @ApiProperty({ nullable: true, type: 'integer' }) monthly_tokens: number | null;
  @ApiProperty({ nullable: true, type: Number }) daily_usd: number | null;
  @ApiProperty({ nullable: true, type: Number }) monthly_usd: number | null;
  @ApiProperty({ type: BudgetUsageResponse, description: 'Use so far in the current day and month.' })
  usage: BudgetUsageResponse;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) updated_at: string | null;
}
