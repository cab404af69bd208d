import { ApiProperty } from '@nestjs/swagger';

/** A criticality or sensitivity level. */
export class LevelResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'High' })
  name: string;

  @ApiProperty({ example: '#F97316', pattern: '^#[0-9A-Fa-f]{6}$' })
  color: string;

  @ApiProperty({ type: 'integer' })
  sort_order: number;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class StatusResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Under Maintenance' })
  name: string;

  @ApiProperty({ example: 'under_maintenance' })
  slug: string;

  @ApiProperty({ example: '#3B82F6', pattern: '^#[0-9A-Fa-f]{6}$' })
  color: string;

  @ApiProperty({ type: 'integer' })
  sort_order: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The live values of the three collections, for product forms. */
export class SpaceConfigResponse {
  @ApiProperty({ type: LevelResponse, isArray: true })
  criticality_levels: LevelResponse[];

  @ApiProperty({ type: LevelResponse, isArray: true })
  sensitivity_levels: LevelResponse[];

  @ApiProperty({ type: StatusResponse, isArray: true })
  maintenance_statuses: StatusResponse[];
}
