import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { BooleanField, UuidField } from '../../../common/validation/field.decorators';
import { SlugParams } from '../../../common/http/slug-params.dto';

export class EnablementParams extends SlugParams {
  @UuidField()
  provider_id: string;
}

export class PutEnablementDto {
  @BooleanField()
  enabled: boolean;

  @Allow()
  @ApiProperty({
    type: String,
    enum: ['read'],
    required: false,
    default: 'read',
    description: 'Only `read` in this version (400 otherwise).',
  })
  max_risk_level?: unknown;

  @Allow()
  @ApiProperty({
    type: [String],
    nullable: true,
    required: false,
    maxItems: 500,
    description:
      "Tool names, raw (`web_search`) or namespaced (`web-search.web_search`), of the provider's discovered tools; a name it does not list answers 400 naming it. null or omitted: every enabled read tool.",
  })
  allowed_tool_names?: unknown;
}

export class SpaceToolProviderResponse {
  @ApiProperty({ format: 'uuid' }) provider_id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Whether the provider itself is active (superadmin setting).' })
  provider_active: boolean;
  @ApiProperty({ description: 'Whether this space enabled it; false when never set.' }) enabled: boolean;
  @ApiProperty({ enum: ['read'] }) max_risk_level: string;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'Raw tool names; null allows every enabled read tool.',
  })
  allowed_tool_names: string[] | null;
  @ApiProperty({ type: [String], description: 'Namespaced names of the tools available in this space now.' })
  available_tools: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: Date | null;
}
