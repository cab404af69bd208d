import { ApiProperty } from '@nestjs/swagger';

export class SchemaColumnChange {
  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true, description: 'The column type as the producer sent it.' })
  type: string | null;
}

export class SchemaColumnRetyped extends SchemaColumnChange {
  @ApiProperty({ type: String, nullable: true, description: 'The type before the change.' })
  previous_type: string | null;
}

export class SchemaChangeJob {
  @ApiProperty()
  namespace: string;

  @ApiProperty()
  name: string;
}

export class SchemaChangeResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  product_id: string;

  @ApiProperty({
    format: 'date-time',
    description: 'The event time of the OpenLineage event with the new schema.',
  })
  changed_at: string;

  @ApiProperty({ type: SchemaColumnChange, isArray: true })
  added: SchemaColumnChange[];

  @ApiProperty({ type: SchemaColumnChange, isArray: true })
  removed: SchemaColumnChange[];

  @ApiProperty({ type: SchemaColumnRetyped, isArray: true })
  changed: SchemaColumnRetyped[];

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The OpenLineage run that reported it.',
  })
  run_id: string | null;

  @ApiProperty({
    type: SchemaChangeJob,
    nullable: true,
    description: 'The OpenLineage job that reported it.',
  })
  job: SchemaChangeJob | null;
}
