import { AggregatorRegistry } from 'prom-client';
import { answerWorkers } from '../cluster/ipc';

/** The IPC channel a worker asks the primary for the metrics of all workers on. */
export const CLUSTER_METRICS = 'metrics';

/**
 * In the cluster primary: answers workers' scrapes with the metrics of all workers.
 * Kept apart from MetricsService so that the primary does not load Nest.
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  answerWorkers(CLUSTER_METRICS, () => aggregator.clusterMetrics());
}
