import { ApiProperty } from '@nestjs/swagger';
import { UuidField } from '../../../common/validation/field.decorators';

export class PutWebSearchBindingDto {
  @UuidField({
    description:
      'A discovered tool (`GET /admin/ai/tool-providers/{id}/tools`) with capability_id web_search.',
  })
  provider_tool_id: string;
}

export class WebSearchBindingResponse {
  @ApiProperty({ example: 'web_search' }) capability_id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) binding_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) provider_tool_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) provider_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'web-search.web_search' }) namespaced_name:
    string | null;
  @ApiProperty({ description: 'True only when readiness_errors is empty.' }) healthy: boolean;
  @ApiProperty({
    type: [String],
    description: 'Every reason the capability fails closed; empty when healthy.',
  })
  readiness_errors: string[];
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the health probe ran.',
  })
  checked_at: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: Date | null;
}
