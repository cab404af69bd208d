import { ApiProperty } from '@nestjs/swagger';
import { IntField, JsonObjectField, StringField } from '../../../common/validation/field.decorators';

export const PROMPT_KEY_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export class PromptKeyParams {
  @StringField({ min: 1, max: 63, pattern: PROMPT_KEY_PATTERN, description: 'A snake_case prompt key.' })
  prompt_key: string;
}

export class CreatePromptVersionDto {
  @StringField({
    min: 1,
    max: 50_000,
    description: "Uses `{{variable}}` placeholders; only the prompt's variables are allowed.",
  })
  template: string;

  @StringField({
    optional: true,
    min: 1,
    max: 20_000,
    description: "The system message; the code default's when left out.",
  })
  system?: string;

  @StringField({ optional: true, max: 500 })
  note?: string;
}

export class PreviewPromptDto {
  @JsonObjectField({
    description: "Values for the prompt's variables; each one the prompt uses is required.",
  })
  variables: Record<string, unknown>;

  @IntField({
    optional: true,
    min: 0,
    description: 'A stored version (0 = the code default); the active one when left out.',
  })
  version?: number;
}

export class PromptMessage {
  @ApiProperty({ enum: ['system', 'user', 'assistant'] }) role: string;
  @ApiProperty() content: string;
}

export class PromptVersionResponse {
  @ApiProperty({ type: 'integer', description: '0 is the code default.' }) version: number;
  @ApiProperty({ enum: ['active', 'draft', 'inactive'] }) status: string;
  @ApiProperty() system: string;
  @ApiProperty() template: string;
  @ApiProperty({ type: String, isArray: true }) variables: string[];
  @ApiProperty({ nullable: true, type: String }) note: string | null;
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The AI log a saved prompt came from.',
  })
  source_log_id: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) created_by: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) created_at: string | null;
}

export class PromptSummaryResponse {
  @ApiProperty() prompt_key: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['text', 'json'] }) response_format: string;
  @ApiProperty({ type: String, isArray: true }) variables: string[];
  @ApiProperty({ type: 'integer', description: '0 when the code default is active.' }) active_version: number;
  @ApiProperty({ type: 'integer', description: 'Stored versions, drafts included.' }) version_count: number;
}

export class PromptDetailResponse extends PromptSummaryResponse {
  @ApiProperty({
    type: PromptVersionResponse,
    isArray: true,
    description: 'Newest first; the code default (version 0) last.',
  })
  versions: PromptVersionResponse[];
}

export class PromptPreviewResponse {
  @ApiProperty() prompt_key: string;
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiProperty({ type: PromptMessage, isArray: true, description: 'The rendered messages.' })
  messages: PromptMessage[];
  @ApiProperty({
    type: PromptMessage,
    isArray: true,
    description: 'The messages as the gateway would send them, after redaction.',
  })
  redacted_messages: PromptMessage[];
  @ApiProperty({
    type: 'object',
    isArray: true,
    additionalProperties: true,
    description: 'What the redaction guardrail changed: `{kind, count}`.',
  })
  guardrail_actions: Array<Record<string, unknown>>;
}
