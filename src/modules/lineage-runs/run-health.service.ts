import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { QualitySignalsService } from '../quality/quality-signals.service';
import { LineageRunsQueries, RunRecord } from './lineage-runs.queries';
import { AppliedRunEvent, RunHealthPort } from './run-event';
import { foldRunEvent, isFailed, RunFold, runDurationMs } from './run-state';

/**
 * A failed run's alert: `anomaly` (the decided alert types have no pipeline
 * type; the job, run and error travel in `metadata`), `high` for FAIL and
 * `medium` for ABORT (docs/decisions.md#openlineage-run-alerts).
 */
const RUN_ALERT_TYPE = 'anomaly';
const RUN_ALERT_SEVERITY = { FAIL: 'high', ABORT: 'medium' } as const;
/** Severity of a pushed check created for a `dataQualityAssertions` assertion. */
const ASSERTION_CHECK_SEVERITY = 'medium';

/**
 * Jobs and runs of OpenLineage events, and the alerts and check runs they
 * raise, in the ingestion's transaction. The job row is locked first (its
 * upsert), so events of one job apply one after the other.
 */
@Injectable()
export class RunHealthService extends RunHealthPort {
  constructor(
    private readonly queries: LineageRunsQueries,
    private readonly quality: QualitySignalsService,
    private readonly products: ProductDirectoryService,
    private readonly outbox: OutboxService,
  ) {
    super();
  }

  async apply(em: EntityManager, event: AppliedRunEvent): Promise<void> {
    const job = await this.queries.upsertJob(em, event.spaceId, event.job.namespace, event.job.name);
    const { run, previous } = await this.foldIntoRun(em, job.id, event);

    if (isFailed(run.state)) await this.raiseFailure(em, event, run, previous);
    const mayHaveOpenAlerts = job.has_open_alerts || run.jobId !== job.id;
    if (event.eventType === 'COMPLETE' && run.state === 'COMPLETE' && run.endedAt && mayHaveOpenAlerts) {
      await this.resolveEarlierFailures(em, run.jobId, run.endedAt, event.actorUserId);
    }
    await this.recordAssertions(em, event);
  }

  /**
   * A batch's run events in event-time order, with the round trips shared:
   * its jobs upserted and its runs locked in one statement each, and the
   * runs folded in memory and written once each. An event that does more
   * than move its run (a failed run, a completion that may resolve alerts,
   * assertions) is applied by `apply` once what the batch folded so far is
   * written, and so is every later event of its run or job, which then reads
   * what that event wrote.
   */
  async applyAll(em: EntityManager, events: AppliedRunEvent[]): Promise<void> {
    if (!events.length) return;
    const jobKey = (e: AppliedRunEvent) => `${e.spaceId} ${e.job.namespace} ${e.job.name}`;
    const runKey = (e: AppliedRunEvent) => `${e.spaceId} ${e.runId}`;
    const jobKeys = new Map(
      events.map((e) => [jobKey(e), { spaceId: e.spaceId, namespace: e.job.namespace, name: e.job.name }]),
    );
    const jobs = new Map(
      (await this.queries.upsertJobs(em, [...jobKeys.values()])).map((job) => [
        `${job.space_id} ${job.namespace} ${job.name}`,
        job,
      ]),
    );
    const runKeys = new Map(events.map((e) => [runKey(e), { spaceId: e.spaceId, runId: e.runId }]));
    const stored = await this.queries.lockRuns(em, [...runKeys.values()]);
    const folded = new Map<
      string,
      { spaceId: string; run: RunRecord; isNew: boolean; inputs: Set<string>; outputs: Set<string> }
    >();
    const oneByOne = new Set<string>();
    const flush = async () => {
      for (const [key, entry] of folded) {
        await this.queries.writeRun(
          em,
          entry.spaceId,
          entry.run,
          entry.isNew,
          [...entry.inputs],
          [...entry.outputs],
        );
        stored.set(key, entry.run);
      }
      folded.clear();
    };
    for (const event of events) {
      const job = jobs.get(jobKey(event))!;
      const key = runKey(event);
      if (!oneByOne.has(key) && !oneByOne.has(jobKey(event)) && !event.assertions.length) {
        const entry = folded.get(key);
        const existing = entry?.run ?? stored.get(key) ?? null;
        const run = nextRun(existing, job.id, event);
        const mayResolve =
          event.eventType === 'COMPLETE' &&
          run.state === 'COMPLETE' &&
          !!run.endedAt &&
          (job.has_open_alerts || run.jobId !== job.id);
        if (!isFailed(run.state) && !mayResolve) {
          folded.set(key, {
            spaceId: event.spaceId,
            run,
            isNew: entry ? entry.isNew : !stored.has(key),
            inputs: new Set([...(entry?.inputs ?? []), ...event.inputs.map((d) => d.productId)]),
            outputs: new Set([...(entry?.outputs ?? []), ...event.outputs.map((d) => d.productId)]),
          });
          continue;
        }
      }
      await flush();
      await this.apply(em, event);
      oneByOne.add(key);
      oneByOne.add(jobKey(event));
    }
    await flush();
  }

  /**
   * The run after this event, locked and written with its products and its
   * job's latest run; and what it was before (null for a new run).
   */
  private async foldIntoRun(
    em: EntityManager,
    jobId: string,
    event: AppliedRunEvent,
  ): Promise<{ run: RunRecord; previous: RunFold | null }> {
    const existing = await this.queries.lockRun(em, event.spaceId, event.runId);
    const run = nextRun(existing, jobId, event);
    await this.queries.writeRun(
      em,
      event.spaceId,
      run,
      !existing,
      event.inputs.map((d) => d.productId),
      event.outputs.map((d) => d.productId),
    );
    return { run, previous: existing };
  }

  /**
   * The run is failed (FAIL or ABORT): an alert on each output product that
   * has none from this run yet, unless the job already completed a run after
   * this failure; and `lineage.run_failed` when the run just turned failed.
   */
  private async raiseFailure(
    em: EntityManager,
    event: AppliedRunEvent,
    run: RunRecord,
    previous: RunFold | null,
  ): Promise<void> {
    const state = run.state as 'FAIL' | 'ABORT';
    const failedAt = run.endedAt ?? run.stateEventTime;
    const outputs = await this.queries.outputsOf(em, run.id);
    const job = { namespace: event.job.namespace, name: event.job.name };
    const alertIds: string[] = [];
    if (!(await this.queries.completedAfter(em, run.jobId, failedAt))) {
      const alerted = new Set(await this.queries.alertedProducts(em, run.id));
      const names = await this.products.namesOf(
        em,
        outputs.filter((id) => !alerted.has(id)),
        event.spaceId,
      );
      for (const product of names.sort((a, b) => a.id.localeCompare(b.id))) {
        const verb = state === 'FAIL' ? 'failed' : 'was aborted';
        const { alertId } = await this.quality.openAlert(em, {
          spaceId: event.spaceId,
          productId: product.id,
          productName: product.name,
          alertType: RUN_ALERT_TYPE,
          severity: RUN_ALERT_SEVERITY[state],
          message: `Run ${run.runId} of job ${job.namespace}/${job.name} ${verb}${run.errorMessage ? `: ${run.errorMessage}` : '.'}`,
          metadata: {
            source: 'openlineage',
            job_id: run.jobId,
            job_namespace: job.namespace,
            job_name: job.name,
            lineage_run_id: run.id,
            run_id: run.runId,
            state,
            error_message: run.errorMessage,
            event_time: failedAt.toISOString(),
          },
          actorId: event.actorUserId,
        });
        await this.queries.addRunAlert(em, {
          runPk: run.id,
          productId: product.id,
          jobId: run.jobId,
          alertId,
          failedAt,
        });
        alertIds.push(alertId);
      }
    }
    if (previous && isFailed(previous.state)) return;
    await this.outbox.append(em, {
      type: 'lineage.run_failed',
      spaceId: event.spaceId,
      actorId: event.actorUserId,
      data: {
        space_id: event.spaceId,
        job_id: run.jobId,
        job_namespace: job.namespace,
        job_name: job.name,
        lineage_run_id: run.id,
        run_id: run.runId,
        state,
        started_at: run.startedAt?.toISOString() ?? null,
        ended_at: run.endedAt?.toISOString() ?? null,
        duration_ms: run.durationMs,
        error_message: run.errorMessage,
        output_product_ids: outputs,
        alert_ids: alertIds,
      },
    });
  }

  /** A completed run resolves the alerts the job's earlier failed runs raised, as alerts resolve today. */
  private async resolveEarlierFailures(
    em: EntityManager,
    jobId: string,
    completedAt: Date,
    actorId: string,
  ): Promise<void> {
    const open = await this.queries.openRunAlerts(em, jobId, completedAt);
    if (!open.length) return;
    await this.quality.resolveAlerts(
      em,
      open.map((r) => r.alert_id),
      actorId,
    );
    await this.queries.markRunAlertsResolved(em, jobId, open);
  }

  /** Each `dataQualityAssertions` result becomes a run of the product's pushed check of that assertion. */
  private async recordAssertions(em: EntityManager, event: AppliedRunEvent): Promise<void> {
    for (const measured of event.assertions) {
      for (const assertion of measured.assertions) {
        await this.quality.pushCheckResult(em, {
          spaceId: event.spaceId,
          productId: measured.productId,
          checkName: assertion.column ? `${assertion.assertion} (${assertion.column})` : assertion.assertion,
          description: 'Results pushed by OpenLineage `dataQualityAssertions` facets.',
          severity: ASSERTION_CHECK_SEVERITY,
          passed: assertion.success,
          message: `${assertion.success ? 'Passed' : 'Failed'} in run ${event.runId} of job ${event.job.namespace}/${event.job.name}.`,
          actorId: event.actorUserId,
        });
      }
    }
  }
}

/** The run after an event (pure): the fold of its state, its duration, its parent; a new run is the event's job's. */
function nextRun(existing: RunRecord | null, jobId: string, event: AppliedRunEvent): RunRecord {
  const fold = foldRunEvent(existing, {
    eventType: event.eventType,
    eventTime: event.eventTime,
    errorMessage: event.errorMessage?.message ?? null,
  });
  const parent =
    event.parent && !existing?.parentRunId
      ? {
          parentRunId: event.parent.runId,
          parentJobNamespace: event.parent.job.namespace,
          parentJobName: event.parent.job.name,
        }
      : {};
  // A runId names one run: its job is the one of its first event.
  return {
    ...(existing ?? {
      id: randomUUID(),
      jobId,
      runId: event.runId,
      parentRunId: null,
      parentJobNamespace: null,
      parentJobName: null,
    }),
    ...fold,
    durationMs: runDurationMs(fold),
    ...parent,
  };
}
