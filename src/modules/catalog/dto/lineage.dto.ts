import { SlugParams } from '../../../common/http/slug-params.dto';

import { ApiProperty } from '@nestjs/swagger';

import { EnumField, QueryIntField, UuidField } from '../../../common/validation/field.decorators';

export const LINEAGE_DIRECTIONS = ['upstream', 'downstream', 'both'] as const;
export type LineageDirection = (typeof LINEAGE_DIRECTIONS)[number];

export class CreateLineageEdgeDto {
  @UuidField({ description: 'A product of the space; data flows from it.' })
  upstream_id: string;

  @UuidField({ description: 'A product of the space; data flows into it.' })
  downstream_id: string;
}

export class LineageEdgeParams extends SlugParams {
  @UuidField()
  upstream_id: string;

  @UuidField()
  downstream_id: string;
}

export class LineageQuery {
  @EnumField(LINEAGE_DIRECTIONS, { optional: true, default: 'both', enumName: 'LineageDirection' })
  direction?: LineageDirection = 'both';

  @QueryIntField({ min: 1, max: 20, default: 3, description: 'How many hops to follow (1 to 20).' })
  depth?: number = 3;
}

export class LineageEdgeResponse {
  @ApiProperty({ format: 'uuid' })
  upstream_id: string;

  @ApiProperty({ format: 'uuid' })
  downstream_id: string;
}

export class LineageEdgeCreatedResponse extends LineageEdgeResponse {
  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class LineageNode {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({
    type: 'integer',
    description:
      'Hops from the product (0 for the product itself), in either direction; the shortest walk counts.',
  })
  depth: number;
}

export class LineageJobRef {
  @ApiProperty({ description: 'The OpenLineage job namespace.' })
  namespace: string;

  @ApiProperty({ description: 'The OpenLineage job name.' })
  name: string;
}

export class ColumnLineageEntry {
  @ApiProperty({ description: 'A column of the downstream product.' })
  downstream_column: string;

  @ApiProperty({ description: 'The column of the upstream product it is derived from.' })
  upstream_column: string;
}

export class LineageGraphEdge extends LineageEdgeResponse {
  @ApiProperty({
    type: LineageJobRef,
    nullable: true,
    description: 'The OpenLineage job whose run last recorded the edge; null for an edge recorded by hand.',
  })
  job: LineageJobRef | null;

  @ApiProperty({
    type: ColumnLineageEntry,
    isArray: true,
    description:
      'Column lineage along the edge (from OpenLineage `columnLineage` facets): each downstream column with the ' +
      'upstream column it is derived from; empty when none is known.',
  })
  column_lineage: ColumnLineageEntry[];
}

export class LineageGraphResponse {
  @ApiProperty({ type: LineageNode, isArray: true })
  nodes: LineageNode[];

  @ApiProperty({ type: LineageGraphEdge, isArray: true })
  edges: LineageGraphEdge[];
}
