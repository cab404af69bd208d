import { Injectable } from '@nestjs/common';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { askPrimary, inClusterWorker } from '../cluster/ipc';
import { CLUSTER_METRICS } from './cluster-metrics';

/**
 * The Prometheus registry of this process: HTTP metrics plus Node's process
 * metrics. In a cluster, a scrape answered by any worker shows the sum over
 * all workers, gathered by the primary.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  // Bound series per method, status and route template (a bounded set): prom-client
  // would otherwise hash the label object on every observation.
  private readonly seriesByKey = new Map<
    string,
    { requests: { inc(): void }; duration: { observe(value: number): void } }
  >();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    if (inClusterWorker()) {
      // Lets the primary's aggregator collect this registry.
      AggregatorRegistry.setRegistries([this.registry]);
      new AggregatorRegistry();
    }
  }

  /** The exposition text: this process's, or in a cluster every worker's, summed by the primary. */
  text(): Promise<string> {
    return inClusterWorker() ? askPrimary<string>(CLUSTER_METRICS, null) : this.registry.metrics();
  }

  /** Records one answered request; `route` is the template, never the raw path. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.seriesByKey.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { requests: this.httpRequests.labels(labels), duration: this.httpDuration.labels(labels) };
      this.seriesByKey.set(key, series);
    }
    series.requests.inc();
    series.duration.observe(seconds);
  }
}
