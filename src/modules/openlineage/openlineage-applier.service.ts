import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { columnEdgeKey, LineageService } from '../catalog/lineage.service';
import { datasetKey, ProductDirectoryService } from '../catalog/product-directory.service';
import { ProductsService } from '../catalog/products.service';
import {
  AppliedRunEvent,
  DataQualityAssertion,
  ResolvedDataset,
  RunHealthPort,
} from '../lineage-runs/run-event';
import { ProductSchemaChange } from './entities/product-schema-change.entity';
import { NamespaceMappingsService } from './namespace-mappings.service';
import {
  datasetsOf,
  namespacesOf,
  OlDataset,
  OlEvent,
  schemaColumns,
  SchemaField,
} from './openlineage-event';
import { ClaimedEventRow } from './openlineage.queries';
import { diffColumns } from './schema-diff';

type Job = { namespace: string; name: string };

/**
 * What a batch already knows, read once per space for all its events: the
 * products of its datasets, their columns, and the lineage among them. The
 * steady state (runs repeating known lineage) then writes nothing but runs.
 */
export class BatchContext {
  readonly spaces = new Map<
    string,
    { products: Map<string, string>; columns: Map<string, ColumnList>; lineage: Map<string, Job | null> }
  >();

  /**
   * Run events held for run health until the batch is applied (`finishBatch`), so that its jobs and runs
   * are read and written together; null when each event goes to run health at once (one-by-one retries).
   */
  readonly runEvents: AppliedRunEvent[] | null;

  constructor(
    readonly rows: ClaimedEventRow[],
    holdRunEvents = false,
  ) {
    this.runEvents = holdRunEvents ? [] : null;
  }
}

type ColumnList = { name: string; type: string | null }[];

/** What applying one event left out, kept on its raw row. */
export interface ApplyOutcome {
  skipped_edges: { space_id: string; upstream_id: string; downstream_id: string; reason: 'cycle' }[];
  unmatched_datasets: { space_id: string; namespace: string; name: string }[];
}

type ColumnLineageFacet = {
  fields: Record<string, { inputFields: { namespace: string; name: string; field: string }[] }>;
};

/**
 * Applies one stored OpenLineage event to each space it was accepted for,
 * in the processor's transaction: datasets resolved to products (by their
 * identity, or created when the namespace's mapping says so), lineage edges
 * input -> output with the job and column lineage, columns from `schema`
 * facets (a change recorded and announced), and run events handed to run
 * health (RunHealthPort).
 */
@Injectable()
export class OpenLineageApplier {
  constructor(
    private readonly mappings: NamespaceMappingsService,
    private readonly directory: ProductDirectoryService,
    private readonly products: ProductsService,
    private readonly lineage: LineageService,
    private readonly runHealth: RunHealthPort,
    private readonly outbox: OutboxService,
  ) {}

  async apply(em: EntityManager, row: ClaimedEventRow, batch: BatchContext): Promise<ApplyOutcome | null> {
    const event = row.payload as unknown as OlEvent;
    const outcome: ApplyOutcome = { skipped_edges: [], unmatched_datasets: [] };
    const mapped = await this.mappings.spacesFor(em, namespacesOf(event));
    for (const spaceId of row.space_ids) {
      const createIn = new Map<string, boolean>();
      for (const [namespace, spaces] of mapped) {
        const mapping = spaces.find((space) => space.spaceId === spaceId);
        if (mapping) createIn.set(namespace, mapping.createProducts);
      }
      // The space no longer maps any of the event's namespaces (or is gone): nothing to apply there.
      if (!createIn.size) continue;
      await this.applyToSpace(em, row, event, spaceId, createIn, outcome, batch);
    }
    return outcome.skipped_edges.length || outcome.unmatched_datasets.length ? outcome : null;
  }

  private async applyToSpace(
    em: EntityManager,
    row: ClaimedEventRow,
    event: OlEvent,
    spaceId: string,
    createIn: Map<string, boolean>,
    outcome: ApplyOutcome,
    batch: BatchContext,
  ): Promise<void> {
    const eventTime = new Date(event.eventTime);
    const inSpace = (dataset: { namespace: string }) => createIn.has(dataset.namespace);
    const datasets = datasetsOf(event).filter(inSpace);
    const known = await this.knownIn(em, spaceId, batch);
    const products = known.products;
    for (const dataset of datasets) {
      const key = datasetKey(dataset);
      if (products.has(key)) continue;
      if (!createIn.get(dataset.namespace)) {
        outcome.unmatched_datasets.push({
          space_id: spaceId,
          namespace: dataset.namespace,
          name: dataset.name,
        });
        continue;
      }
      const { product } = await this.products.upsertDataset(em, null, spaceId, {
        name: dataset.name,
        attributes: { openlineage: { namespace: dataset.namespace, name: dataset.name } },
        identity: { namespace: dataset.namespace, name: dataset.name },
      });
      products.set(key, product.id);
      known.columns.delete(product.id);
    }
    const resolve = (dataset: OlDataset): ResolvedDataset | null => {
      const productId = products.get(datasetKey(dataset));
      return productId ? { productId, namespace: dataset.namespace, name: dataset.name } : null;
    };
    const inputs = (event.inputs ?? []).filter(inSpace).map(resolve).filter(isPresent);
    const outputs = (event.outputs ?? []).filter(inSpace).map(resolve).filter(isPresent);

    for (const dataset of datasets) {
      const schema = dataset.facets?.schema as { fields: SchemaField[] } | undefined;
      const productId = products.get(datasetKey(dataset));
      if (schema && productId) {
        await this.setColumns(em, row, event, spaceId, productId, schema.fields, eventTime, known.columns);
      }
    }

    if (event.job && (inputs.length || outputs.length)) {
      const columns = (event.outputs ?? []).filter(inSpace).flatMap((output) => {
        const downstreamId = products.get(datasetKey(output));
        const facet = output.facets?.columnLineage as ColumnLineageFacet | undefined;
        if (!downstreamId || !facet) return [];
        return Object.entries(facet.fields).flatMap(([downstreamColumn, entry]) =>
          entry.inputFields.flatMap((input) => {
            const upstreamId = products.get(datasetKey(input));
            return upstreamId && upstreamId !== downstreamId
              ? [{ upstreamId, upstreamColumn: input.field, downstreamId, downstreamColumn }]
              : [];
          }),
        );
      });
      const edges = inputs.flatMap((input) =>
        outputs.map((output) => ({ upstreamId: input.productId, downstreamId: output.productId })),
      );
      // Column lineage implies the table-level edge it runs along.
      for (const column of columns) {
        edges.push({ upstreamId: column.upstreamId, downstreamId: column.downstreamId });
      }
      const job = event.job;
      const sameJob = (key: string) => {
        const recorded = known.lineage.get(key);
        return !!recorded && recorded.namespace === job.namespace && recorded.name === job.name;
      };
      const columnKey = (c: (typeof columns)[number]) =>
        columnEdgeKey(c.upstreamId, c.upstreamColumn, c.downstreamId, c.downstreamColumn);
      const newEdges = edges.filter((edge) => !sameJob(`${edge.upstreamId}>${edge.downstreamId}`));
      const newColumns = columns.filter((column) => !sameJob(columnKey(column)));
      if (newEdges.length || newColumns.length) {
        const { skipped } = await this.lineage.recordJobLineage(
          em,
          spaceId,
          row.actor_user_id,
          job,
          newEdges,
          newColumns,
        );
        const refused = new Set(skipped.map((edge) => `${edge.upstream_id}>${edge.downstream_id}`));
        for (const edge of newEdges) {
          const key = `${edge.upstreamId}>${edge.downstreamId}`;
          if (!refused.has(key)) known.lineage.set(key, job);
        }
        for (const column of newColumns) known.lineage.set(columnKey(column), job);
        outcome.skipped_edges.push(...skipped.map((edge) => ({ space_id: spaceId, ...edge })));
      }
    }

    if (row.kind === 'run' && event.run && event.job) {
      const applied: AppliedRunEvent = {
        spaceId,
        actorUserId: row.actor_user_id,
        runId: event.run.runId.toLowerCase(),
        eventType: event.eventType ?? 'OTHER',
        eventTime,
        job: { namespace: event.job.namespace, name: event.job.name },
        parent: parentOf(event),
        errorMessage: errorMessageOf(event),
        inputs,
        outputs,
        assertions: (event.inputs ?? []).filter(inSpace).flatMap((input) => {
          const productId = products.get(datasetKey(input));
          const facet = input.inputFacets?.dataQualityAssertions as
            { assertions: Record<string, unknown>[] } | undefined;
          if (!productId || !facet) return [];
          const assertions: DataQualityAssertion[] = facet.assertions.map((a) => ({
            assertion: a.assertion as string,
            success: a.success as boolean,
            column: typeof a.column === 'string' ? a.column : null,
          }));
          return [{ productId, assertions }];
        }),
      };
      if (batch.runEvents) batch.runEvents.push(applied);
      else await this.runHealth.apply(em, applied);
    }
  }

  /** Hands the run events the batch held to run health, in the order they were applied. */
  async finishBatch(em: EntityManager, batch: BatchContext): Promise<void> {
    if (batch.runEvents?.length) await this.runHealth.applyAll(em, batch.runEvents);
  }

  /** The batch's datasets in the space: their products, columns and lineage, read on first use. */
  private async knownIn(em: EntityManager, spaceId: string, batch: BatchContext) {
    const cached = batch.spaces.get(spaceId);
    if (cached) return cached;
    const identities = batch.rows
      .filter((row) => row.space_ids.includes(spaceId))
      .flatMap((row) => {
        const event = row.payload as unknown as OlEvent;
        const datasets = datasetsOf(event);
        return [
          ...datasets,
          ...datasets.flatMap((dataset) =>
            Object.values(
              (dataset.facets?.columnLineage as ColumnLineageFacet | undefined)?.fields ?? {},
            ).flatMap((entry) => entry.inputFields),
          ),
        ];
      });
    const unique = [
      ...new Map(identities.map((i) => [datasetKey(i), { namespace: i.namespace, name: i.name }])).values(),
    ];
    const products = await this.directory.datasetProducts(em, spaceId, unique);
    const ids = [...new Set(products.values())];
    const known = {
      products,
      columns: await this.directory.datasetColumns(em, spaceId, ids),
      lineage: await this.lineage.recordedAmong(em, ids),
    };
    batch.spaces.set(spaceId, known);
    return known;
  }

  private async setColumns(
    em: EntityManager,
    row: ClaimedEventRow,
    event: OlEvent,
    spaceId: string,
    productId: string,
    fields: SchemaField[],
    eventTime: Date,
    knownColumns: Map<string, ColumnList>,
  ): Promise<void> {
    const columns = schemaColumns(fields);
    const current = knownColumns.get(productId);
    if (current && sameColumns(current, columns)) return;
    const { previous, changed } = await this.products.setDatasetColumns(
      em,
      row.actor_user_id,
      spaceId,
      productId,
      columns,
      eventTime,
    );
    if (changed) knownColumns.set(productId, columns);
    if (!changed || previous === null) return;
    const diff = diffColumns(previous, columns);
    if (!diff.added.length && !diff.removed.length && !diff.changed.length) return;
    const repo = em.getRepository(ProductSchemaChange);
    const change = await repo.save(
      repo.create({
        spaceId,
        productId,
        changedAt: eventTime,
        ...diff,
        runId: row.kind === 'run' ? (event.run?.runId.toLowerCase() ?? null) : null,
        jobNamespace: event.job?.namespace ?? null,
        jobName: event.job?.name ?? null,
      }),
    );
    const [name] = await this.directory.namesOf(em, [productId], spaceId);
    await this.outbox.append(em, {
      type: 'product.schema_changed',
      spaceId,
      actorId: row.actor_user_id,
      data: {
        product_id: productId,
        space_id: spaceId,
        name: name?.name ?? productId,
        change_id: change.id,
        added: diff.added.map((c) => c.name),
        removed: diff.removed.map((c) => c.name),
        changed: diff.changed.map((c) => c.name),
      },
    });
  }
}

function sameColumns(a: ColumnList, b: ColumnList): boolean {
  return (
    a.length === b.length &&
    a.every((column, i) => column.name === b[i].name && (column.type ?? null) === b[i].type)
  );
}

function isPresent<T>(value: T | null): value is T {
  return value !== null;
}

function parentOf(event: OlEvent): AppliedRunEvent['parent'] {
  const parent = event.run?.facets?.parent as
    { run: { runId: string }; job: { namespace: string; name: string } } | undefined;
  if (!parent) return null;
  return {
    runId: parent.run.runId.toLowerCase(),
    job: { namespace: parent.job.namespace, name: parent.job.name },
  };
}

function errorMessageOf(event: OlEvent): AppliedRunEvent['errorMessage'] {
  const facet = event.run?.facets?.errorMessage as
    { message: string; programmingLanguage?: string; stackTrace?: string } | undefined;
  if (!facet) return null;
  return {
    message: facet.message,
    programmingLanguage: facet.programmingLanguage ?? null,
    stackTrace: facet.stackTrace ?? null,
  };
}
