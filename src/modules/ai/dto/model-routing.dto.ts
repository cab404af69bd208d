import { ApiProperty } from '@nestjs/swagger';
import {
  EnumField,
  IntField,
  NumberField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { AI_PROVIDERS } from '../entities/ai-config.entity';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

export const FEATURE_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export class CreateModelProfileDto {
  @StringField({ min: 1, max: 100 })
  name: string;

  @EnumField(AI_PROVIDERS, { enumName: 'AiProvider' })
  provider: (typeof AI_PROVIDERS)[number];

  @StringField({ min: 1, max: 200 })
  model_name: string;

  @NumberField({ optional: true, nullable: true, min: 0, max: 2 })
  temperature?: number | null;

  @IntField({ optional: true, nullable: true, min: 1, max: 200_000 })
  max_tokens?: number | null;

  @UuidField({
    optional: true,
    nullable: true,
    description: 'The profile a failed call falls back to, once.',
  })
  fallback_profile_id?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    min: 1,
    max: 1000,
    description:
      "Write-only. Without it the profile uses the provider configuration's key when both name the same provider.",
  })
  api_key?: string | null;

  @StringField({
    optional: true,
    nullable: true,
    max: 2000,
    description:
      "Public HTTPS (or a TRUSTED_AI_HOSTS host). Without it the profile uses the configuration's base URL for the same provider, else the provider's public endpoint. " +
      OUTBOUND_POLICY_NOTE,
  })
  api_base_url?: string | null;
}

export class ModelProfileResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: AI_PROVIDERS, enumName: 'AiProvider' }) provider: string;
  @ApiProperty() model_name: string;
  @ApiProperty({ nullable: true, type: Number }) temperature: number | null;
  @ApiProperty({ nullable: true, type: 'integer' }) max_tokens: number | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) fallback_profile_id: string | null;
  @ApiProperty() api_key_set: boolean;
  @ApiProperty({ nullable: true, type: String }) api_base_url: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class PutModelRouteDto {
  @StringField({
    min: 1,
    max: 63,
    pattern: FEATURE_PATTERN,
    description: 'A snake_case feature name, e.g. alert_explain.',
  })
  feature: string;

  @UuidField()
  profile_id: string;
}

export class ModelRouteResponse {
  @ApiProperty() feature: string;
  @ApiProperty({ format: 'uuid' }) profile_id: string;
  @ApiProperty() profile_name: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
