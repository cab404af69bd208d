import { LineageJobResponse, LineageRunResponse, LineageRunSummary } from './dto/lineage-runs.dto';
import type { JobRow, RunDatasetRow, RunRow } from './lineage-runs.queries';

const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);
const count = (value: string | number | null): number | null => (value === null ? null : Number(value));

export function toRunResponse(row: RunRow, datasets: RunDatasetRow[]): LineageRunResponse {
  const mine = datasets.filter((d) => d.lineage_run_id === row.id);
  return {
    id: row.id,
    run_id: row.run_id,
    state: row.state,
    started_at: iso(row.started_at),
    ended_at: iso(row.ended_at),
    duration_ms: count(row.duration_ms),
    error_message: row.error_message,
    job: { id: row.job_id, namespace: row.job_namespace, name: row.job_name },
    parent:
      row.parent_run_id && row.parent_job_namespace !== null && row.parent_job_name !== null
        ? {
            run_id: row.parent_run_id,
            job_namespace: row.parent_job_namespace,
            job_name: row.parent_job_name,
          }
        : null,
    input_product_ids: mine.filter((d) => d.direction === 'input').map((d) => d.product_id),
    output_product_ids: mine.filter((d) => d.direction === 'output').map((d) => d.product_id),
    first_event_time: new Date(row.first_event_time).toISOString(),
    last_event_time: new Date(row.last_event_time).toISOString(),
  };
}

export function toJobResponse(row: JobRow): LineageJobResponse {
  const latest: LineageRunSummary | null =
    row.run_id && row.run_run_id && row.run_state
      ? {
          id: row.run_id,
          run_id: row.run_run_id,
          state: row.run_state,
          started_at: iso(row.run_started_at),
          ended_at: iso(row.run_ended_at),
          duration_ms: count(row.run_duration_ms),
          error_message: row.run_error_message,
        }
      : null;
  return {
    id: row.id,
    namespace: row.namespace,
    name: row.name,
    latest_run: latest,
    last_event_time: iso(row.last_event_time),
    created_at: new Date(row.created_at).toISOString(),
  };
}
