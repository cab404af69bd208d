import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { RUN_STATES } from '../../lineage-runs/run-event';

/**
 * The OpenLineage event model as this API documents it (the specification's
 * OpenLineage.json, 2-0-2). These classes only document the body: the route
 * checks it with validateEvent (openlineage-event.ts), which names each
 * invalid field, in a batch with its index (`[2].run.runId`).
 */

const FACETS = {
  type: 'object',
  additionalProperties: true,
  description:
    'Facets by name. Checked when used: `schema`, `dataSource`, `columnLineage` (dataset facets), ' +
    '`dataQualityMetrics`, `dataQualityAssertions` (input facets), `errorMessage`, `parent` (run facets); ' +
    'every other facet is kept as sent.',
} as const;

export class OpenLineageJob {
  @ApiProperty({ description: 'The job namespace (e.g. `airflow-prod`); a space may map it.' })
  namespace: string;

  @ApiProperty({ description: 'The job name, unique within its namespace (e.g. `etl.load_orders`).' })
  name: string;

  @ApiPropertyOptional(FACETS)
  facets?: Record<string, unknown>;
}

export class OpenLineageRun {
  @ApiProperty({ format: 'uuid', description: 'The run id, a UUID (the client makes it).' })
  runId: string;

  @ApiPropertyOptional(FACETS)
  facets?: Record<string, unknown>;
}

export class OpenLineageDataset {
  @ApiProperty({
    description:
      'The dataset namespace by OpenLineage naming (PostgreSQL: `postgres://{host}:{port}`); a space may map it.',
  })
  namespace: string;

  @ApiProperty({
    description: 'The dataset name by OpenLineage naming (PostgreSQL: `{database}.{schema}.{table}`).',
  })
  name: string;

  @ApiPropertyOptional(FACETS)
  facets?: Record<string, unknown>;

  @ApiPropertyOptional({
    ...FACETS,
    description: 'Input facets (`dataQualityMetrics`, `dataQualityAssertions`, ...).',
  })
  inputFacets?: Record<string, unknown>;

  @ApiPropertyOptional({ ...FACETS, description: 'Output facets (`outputStatistics`, ...).' })
  outputFacets?: Record<string, unknown>;
}

const SCHEMA_URL =
  'The schema the event follows; its fragment tells the kind: `…#/$defs/JobEvent`, `…#/$defs/DatasetEvent`, ' +
  'anything else is a RunEvent.';

class OpenLineageBaseEvent {
  @ApiProperty({ format: 'date-time', description: 'When the event happened, with its time zone.' })
  eventTime: string;

  @ApiProperty({ format: 'uri', description: 'The software that made the event (a URI).' })
  producer: string;

  @ApiProperty({ format: 'uri', description: SCHEMA_URL })
  schemaURL: string;
}

export class OpenLineageRunEvent extends OpenLineageBaseEvent {
  @ApiProperty({
    format: 'uri',
    example: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    description: SCHEMA_URL,
  })
  declare schemaURL: string;

  @ApiPropertyOptional({
    enum: RUN_STATES,
    enumName: 'OpenLineageEventType',
    description: 'The run transition; left out, the event counts as `OTHER`.',
  })
  eventType?: string;

  @ApiProperty({ type: OpenLineageRun })
  run: OpenLineageRun;

  @ApiProperty({ type: OpenLineageJob })
  job: OpenLineageJob;

  @ApiPropertyOptional({ type: OpenLineageDataset, isArray: true })
  inputs?: OpenLineageDataset[];

  @ApiPropertyOptional({ type: OpenLineageDataset, isArray: true })
  outputs?: OpenLineageDataset[];
}

export class OpenLineageJobEvent extends OpenLineageBaseEvent {
  @ApiProperty({
    format: 'uri',
    example: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent',
    description: SCHEMA_URL,
  })
  declare schemaURL: string;

  @ApiProperty({ type: OpenLineageJob })
  job: OpenLineageJob;

  @ApiPropertyOptional({ type: OpenLineageDataset, isArray: true })
  inputs?: OpenLineageDataset[];

  @ApiPropertyOptional({ type: OpenLineageDataset, isArray: true })
  outputs?: OpenLineageDataset[];
}

export class OpenLineageDatasetEvent extends OpenLineageBaseEvent {
  @ApiProperty({
    format: 'uri',
    example: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent',
    description: SCHEMA_URL,
  })
  declare schemaURL: string;

  @ApiProperty({ type: OpenLineageDataset })
  dataset: OpenLineageDataset;
}

export class OpenLineageAcceptedResponse {
  @ApiProperty({
    type: 'integer',
    description:
      'How many of the events touch a namespace some space maps, and are stored (now, or before: a run event ' +
      'sent again is stored once). 0 when no space maps them: nothing changed. Clients need not read it.',
  })
  accepted: number;
}
