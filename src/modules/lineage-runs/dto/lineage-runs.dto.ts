import { ApiProperty } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';
import { UuidField } from '../../../common/validation/field.decorators';
import { RUN_STATES } from '../run-event';

export class LineageJobPathParams extends SlugParams {
  @UuidField({ description: "The job's id (from `GET /spaces/{slug}/lineage/jobs`)." })
  job_id: string;
}

export class ProductRunsPathParams extends SlugParams {
  @UuidField()
  product_id: string;
}

const STATE_RULE =
  "A run's state is where its events converge, in whatever order they arrive: a terminal event (COMPLETE, FAIL, " +
  'ABORT) beats START, RUNNING and OTHER whatever their times, and among terminal events the latest `eventTime` wins ' +
  '(at the same `eventTime`, FAIL over ABORT over COMPLETE); among START and RUNNING the latest wins; OTHER only ' +
  'names a run nothing else is known of.';

export class LineageRunJob {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: "The job's OpenLineage namespace." }) namespace: string;
  @ApiProperty({ description: "The job's OpenLineage name." }) name: string;
}

export class LineageRunParent {
  @ApiProperty({ format: 'uuid', description: "The parent run's OpenLineage runId." }) run_id: string;
  @ApiProperty() job_namespace: string;
  @ApiProperty() job_name: string;
}

/** The fields every run answer carries. */
export class LineageRunSummary {
  @ApiProperty({ format: 'uuid', description: "Verity's id of the run." }) id: string;
  @ApiProperty({ format: 'uuid', description: "OpenLineage's runId." }) run_id: string;
  @ApiProperty({ enum: RUN_STATES, enumName: 'LineageRunState', description: STATE_RULE }) state: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The eventTime of the earliest START; null until one arrived.',
  })
  started_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The eventTime of the winning terminal event; null while the run has none.',
  })
  ended_at: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      '`ended_at` − `started_at` in milliseconds, when both are known (null if the end precedes the start).',
  })
  duration_ms: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `errorMessage` facet of the winning FAIL or ABORT event; null otherwise.',
  })
  error_message: string | null;
}

export class LineageRunResponse extends LineageRunSummary {
  @ApiProperty({ type: LineageRunJob }) job: LineageRunJob;
  @ApiProperty({ type: LineageRunParent, nullable: true, description: 'The `parent` run facet, when sent.' })
  parent: LineageRunParent | null;
  @ApiProperty({ type: String, format: 'uuid', isArray: true, description: 'Products the run read.' })
  input_product_ids: string[];
  @ApiProperty({ type: String, format: 'uuid', isArray: true, description: 'Products the run wrote.' })
  output_product_ids: string[];
  @ApiProperty({
    format: 'date-time',
    description: 'The earliest eventTime of the run (runs are listed by it).',
  })
  first_event_time: string;
  @ApiProperty({ format: 'date-time', description: 'The latest eventTime of the run.' })
  last_event_time: string;
}

export class LineageJobResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: "The job's OpenLineage namespace." }) namespace: string;
  @ApiProperty({ description: "The job's OpenLineage name." }) name: string;
  @ApiProperty({
    type: LineageRunSummary,
    nullable: true,
    description: 'The run with the latest event, in its current state.',
  })
  latest_run: LineageRunSummary | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'The latest eventTime of any run.',
  })
  last_event_time: string | null;
  @ApiProperty({ format: 'date-time', description: 'When Verity first saw the job.' }) created_at: string;
}
