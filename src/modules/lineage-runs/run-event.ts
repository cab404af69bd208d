import type { EntityManager } from 'typeorm';

/**
 * The contract between OpenLineage ingestion (`modules/openlineage`, which
 * validates, stores and resolves events) and run health (this module, which
 * keeps jobs and runs and raises alerts and check runs from them).
 */

/** OpenLineage's run event types, which are also a run's states. */
export const RUN_STATES = ['START', 'RUNNING', 'COMPLETE', 'FAIL', 'ABORT', 'OTHER'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** An OpenLineage job identity. */
export interface JobRef {
  namespace: string;
  name: string;
}

/** A dataset of the event, resolved to the product that carries its identity in the space. */
export interface ResolvedDataset {
  productId: string;
  namespace: string;
  name: string;
}

/** One result of the `dataQualityAssertions` facet of an input dataset. */
export interface DataQualityAssertion {
  assertion: string;
  success: boolean;
  column: string | null;
}

/**
 * One RunEvent as it applies to one space: only the datasets whose namespace
 * that space maps (resolved to its products). An event touching several
 * spaces is applied once per space, in the ingestion's transaction, and
 * events are applied in the order of their `eventTime` within a batch (they
 * may still arrive out of order across batches: the state must converge).
 */
export interface AppliedRunEvent {
  spaceId: string;
  /** The API key's user the event was sent as. */
  actorUserId: string;
  runId: string;
  eventType: RunState;
  eventTime: Date;
  job: JobRef;
  /** The `parent` run facet, when present. */
  parent: { runId: string; job: JobRef } | null;
  /** The `errorMessage` run facet, when present. */
  errorMessage: { message: string; programmingLanguage: string | null; stackTrace: string | null } | null;
  inputs: ResolvedDataset[];
  outputs: ResolvedDataset[];
  /** `dataQualityAssertions` input facets, by the product they were measured on. */
  assertions: { productId: string; assertions: DataQualityAssertion[] }[];
}

/** What ingestion calls with applied run events; run health provides it. */
export abstract class RunHealthPort {
  /** One event (ingestion's one-by-one retry of a failed batch). */
  abstract apply(em: EntityManager, event: AppliedRunEvent): Promise<void>;
  /** A batch's events in event-time order, with the same effects as `apply` on each in turn. */
  abstract applyAll(em: EntityManager, events: AppliedRunEvent[]): Promise<void>;
}
