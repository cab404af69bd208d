import { ApiProperty } from '@nestjs/swagger';
import { PersonRef } from '../../../common/http/person-ref.dto';
import { PRODUCT_TYPES } from '../entities/product.entity';

export class ProductResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: PRODUCT_TYPES, enumName: 'ProductType' })
  product_type: string;

  @ApiProperty({ type: String, nullable: true })
  domain: string | null;

  @ApiProperty({ type: String, isArray: true })
  tags: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Criticality level name. A level deleted after it was set still shows.',
  })
  criticality: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Sensitivity level name.' })
  sensitivity: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Maintenance status slug.' })
  maintenance_status: string | null;

  @ApiProperty({ type: PersonRef, isArray: true, description: 'Owners (a product governance role).' })
  owners: PersonRef[];

  @ApiProperty({ type: PersonRef, isArray: true, description: 'Stewards (a product governance role).' })
  stewards: PersonRef[];

  @ApiProperty({ type: 'integer', nullable: true })
  sla_freshness_minutes: number | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  attributes: Record<string, unknown>;

  @ApiProperty({ type: String, isArray: true })
  logging_event_types: string[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  logging_last_reviewed: string | null;

  @ApiProperty({ type: String, nullable: true })
  logging_notes: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
