import { ApiProperty } from '@nestjs/swagger';
import {
  BooleanField,
  EnumField,
  IntField,
  NumberField,
  StringField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { AI_PROVIDERS } from '../entities/ai-config.entity';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

const KEY = 'Write-only: stored encrypted and never returned (reads show `api_key_set`).';
const BASE =
  'The provider endpoint; required for azure_openai (https://<resource>.openai.azure.com) and openai_compatible. A public HTTPS URL unless its host is in TRUSTED_AI_HOSTS. ' +
  OUTBOUND_POLICY_NOTE;

export class CreateAiConfigDto {
  @EnumField(AI_PROVIDERS, { enumName: 'AiProvider' })
  provider: (typeof AI_PROVIDERS)[number];

  @StringField({ min: 1, max: 200, description: 'The model, or the deployment name on azure_openai.' })
  model_name: string;

  @StringField({ optional: true, nullable: true, min: 1, max: 1000, description: KEY })
  api_key?: string | null;

  @StringField({ optional: true, nullable: true, max: 2000, description: BASE })
  api_base_url?: string | null;

  @NumberField({ optional: true, nullable: true, min: 0, max: 2 })
  temperature?: number | null;

  @IntField({ optional: true, nullable: true, min: 1, max: 200_000 })
  max_tokens?: number | null;

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;
}

/**
 * Only the fields given change. Declared here: `model_name` (on create it is required and documented),
 * `api_key` (null removes it) and `is_enabled` (create documents a default that must not apply on update).
 */
export class UpdateAiConfigDto extends UpdateType(CreateAiConfigDto, [
  'provider',
  'api_base_url',
  'temperature',
  'max_tokens',
] as const) {
  @StringField({ optional: true, min: 1, max: 200 })
  model_name?: string;

  @StringField({ optional: true, nullable: true, min: 1, max: 1000, description: `${KEY} null removes it.` })
  api_key?: string | null;

  @BooleanField({ optional: true })
  is_enabled?: boolean;
}

export class AiConfigResponse {
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Null for the environment configuration.',
  })
  id: string | null;

  @ApiProperty({ enum: ['database', 'environment'] })
  source: 'database' | 'environment';

  @ApiProperty({
    enum: AI_PROVIDERS,
    type: String,
    nullable: true,
    description: 'Null when no configuration is stored and AI_PROVIDER is unset.',
  })
  provider: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Null when no configuration is stored and AI_MODEL is unset.',
  })
  model_name: string | null;

  @ApiProperty()
  api_key_set: boolean;

  @ApiProperty({ nullable: true, type: String })
  api_base_url: string | null;

  @ApiProperty({ nullable: true, type: Number })
  temperature: number | null;

  @ApiProperty({ nullable: true, type: 'integer' })
  max_tokens: number | null;

  @ApiProperty({
    description:
      'False when AI is switched off, and when nothing configures a provider and a model (AI features then answer 503).',
  })
  is_enabled: boolean;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  created_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  updated_at: string | null;
}

export class TestConnectionResponse {
  @ApiProperty()
  success: boolean;

  @ApiProperty({ nullable: true, type: String, description: 'Why the call failed; null on success.' })
  error: string | null;

  @ApiProperty({ type: 'integer', description: 'Round trip of the test call through the gateway.' })
  latency_ms: number;

  @ApiProperty({ nullable: true, type: String })
  model: string | null;
}
