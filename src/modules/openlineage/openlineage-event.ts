import type { FieldError } from '../../common/errors/domain-error';
import { UUID_PATTERN } from '../../common/validation/field.decorators';
import { RUN_STATES, RunState } from '../lineage-runs/run-event';
import type { OpenLineageEventKind } from './entities/openlineage-event.entity';

/**
 * OpenLineage events (https://openlineage.io/spec/2-0-2/OpenLineage.json):
 * the checks this server makes and the shapes it reads. Only what the
 * specification requires and the facets Verity uses are checked; every
 * other member and facet is kept as sent. Facets' own `_producer` and
 * `_schemaURL` are not required: hand-written events often leave them out,
 * and nothing here reads them.
 */

type Json = Record<string, unknown>;

export interface OlDataset {
  namespace: string;
  name: string;
  facets?: Json;
  inputFacets?: Json;
  outputFacets?: Json;
}

export interface OlJob {
  namespace: string;
  name: string;
  facets?: Json;
}

export interface OlEvent {
  eventTime: string;
  producer: string;
  schemaURL: string;
  eventType?: RunState;
  run?: { runId: string; facets?: Json };
  job?: OlJob;
  dataset?: OlDataset;
  inputs?: OlDataset[];
  outputs?: OlDataset[];
}

export interface SchemaField {
  name: string;
  type?: string;
  description?: string;
  fields?: SchemaField[];
}

/**
 * What an event is, by its `schemaURL` (`…#/$defs/JobEvent`,
 * `…#/$defs/DatasetEvent`, else a RunEvent); without one, by its shape (a
 * `run`, a `dataset`, else a job), so that the missing URL is the one error.
 */
export function kindOf(event: Json): OpenLineageEventKind {
  if (typeof event.schemaURL === 'string' && event.schemaURL) {
    if (/JobEvent$/.test(event.schemaURL)) return 'job';
    if (/DatasetEvent$/.test(event.schemaURL)) return 'dataset';
    return 'run';
  }
  if (event.run !== undefined) return 'run';
  if (event.dataset !== undefined) return 'dataset';
  return event.job !== undefined ? 'job' : 'run';
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks one event. Field names are dotted paths as in every other 422 of
 * the API (`inputs.0.namespace`); inside a batch they start with the event's
 * index (`[2].run.runId`).
 */
export function validateEvent(value: unknown, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  const at = (path: string) => prefix + path;
  if (!isObject(value)) {
    return [
      { field: prefix.replace(/\.$/, '') || 'body', message: 'An OpenLineage event must be a JSON object.' },
    ];
  }
  const check = new Checker(errors, at);
  const eventTime = check.string(value, 'eventTime', '');
  if (eventTime !== undefined && !isDateTime(eventTime)) {
    errors.push({
      field: at('eventTime'),
      message: `${at('eventTime')} must be an ISO 8601 date-time with a time zone.`,
    });
  }
  check.uri(value, 'producer', '');
  check.uri(value, 'schemaURL', '');
  const kind = kindOf(value);
  if (kind === 'dataset') {
    const dataset = check.object(value, 'dataset', '', true);
    if (dataset) check.dataset(dataset, 'dataset');
    return errors;
  }
  if (kind === 'run') {
    if (value.eventType !== undefined && !RUN_STATES.includes(value.eventType as RunState)) {
      errors.push({
        field: at('eventType'),
        message: `${at('eventType')} must be one of ${RUN_STATES.join(', ')}.`,
      });
    }
    const run = check.object(value, 'run', '', true);
    if (run) {
      const runId = check.string(run, 'runId', 'run');
      if (runId !== undefined && !UUID_PATTERN.test(runId)) {
        errors.push({ field: at('run.runId'), message: `${at('run.runId')} must be a UUID.` });
      }
      const facets = check.object(run, 'facets', 'run', false);
      if (facets) check.runFacets(facets, 'run.facets');
    }
  }
  const job = check.object(value, 'job', '', true);
  if (job) {
    check.string(job, 'namespace', 'job');
    check.string(job, 'name', 'job');
    check.object(job, 'facets', 'job', false);
  }
  for (const side of ['inputs', 'outputs'] as const) {
    if (value[side] === undefined) continue;
    if (!Array.isArray(value[side])) {
      errors.push({ field: at(side), message: `${at(side)} must be an array.` });
      continue;
    }
    (value[side] as unknown[]).forEach((item, index) => {
      const path = `${side}.${index}`;
      if (!isObject(item)) errors.push({ field: at(path), message: `${at(path)} must be an object.` });
      else check.dataset(item, path);
    });
  }
  return errors;
}

/** ISO 8601 with a date, a time and a zone (`Z` or an offset), as the specification's `date-time`. */
function isDateTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)$/.test(value) &&
    !isNaN(Date.parse(value))
  );
}

class Checker {
  constructor(
    private readonly errors: FieldError[],
    private readonly at: (path: string) => string,
  ) {}

  private path(parent: string, key: string): string {
    return this.at(parent ? `${parent}.${key}` : key);
  }

  string(owner: Json, key: string, parent: string, required = true): string | undefined {
    const value = owner[key];
    const field = this.path(parent, key);
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field, message: `${field} is required.` });
      return undefined;
    }
    if (typeof value !== 'string' || (required && !value.length)) {
      this.errors.push({ field, message: `${field} must be a non-empty string.` });
      return undefined;
    }
    return value;
  }

  uri(owner: Json, key: string, parent: string): void {
    const value = this.string(owner, key, parent);
    if (value === undefined) return;
    if (!URL.canParse(value)) {
      const field = this.path(parent, key);
      this.errors.push({ field, message: `${field} must be a URI.` });
    }
  }

  object(owner: Json, key: string, parent: string, required: boolean): Json | undefined {
    const value = owner[key];
    const field = this.path(parent, key);
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field, message: `${field} is required.` });
      return undefined;
    }
    if (!isObject(value)) {
      this.errors.push({ field, message: `${field} must be an object.` });
      return undefined;
    }
    return value;
  }

  array(owner: Json, key: string, parent: string, required: boolean): unknown[] | undefined {
    const value = owner[key];
    const field = this.path(parent, key);
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field, message: `${field} is required.` });
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.errors.push({ field, message: `${field} must be an array.` });
      return undefined;
    }
    return value;
  }

  dataset(dataset: Json, path: string): void {
    this.string(dataset, 'namespace', path);
    this.string(dataset, 'name', path);
    const facets = this.object(dataset, 'facets', path, false);
    if (facets) {
      const schema = this.object(facets, 'schema', `${path}.facets`, false);
      if (schema) this.schemaFields(schema, `${path}.facets.schema`);
      const source = this.object(facets, 'dataSource', `${path}.facets`, false);
      if (source) {
        this.string(source, 'name', `${path}.facets.dataSource`, false);
        this.string(source, 'uri', `${path}.facets.dataSource`, false);
      }
      const lineage = this.object(facets, 'columnLineage', `${path}.facets`, false);
      if (lineage) this.columnLineage(lineage, `${path}.facets.columnLineage`);
    }
    const inputFacets = this.object(dataset, 'inputFacets', path, false);
    if (inputFacets) {
      const metrics = this.object(inputFacets, 'dataQualityMetrics', `${path}.inputFacets`, false);
      if (metrics) this.object(metrics, 'columnMetrics', `${path}.inputFacets.dataQualityMetrics`, false);
      const assertions = this.object(inputFacets, 'dataQualityAssertions', `${path}.inputFacets`, false);
      if (assertions) this.assertions(assertions, `${path}.inputFacets.dataQualityAssertions`);
    }
    this.object(dataset, 'outputFacets', path, false);
  }

  schemaFields(owner: Json, path: string): void {
    const fields = this.array(owner, 'fields', path, true);
    fields?.forEach((item, index) => {
      const itemPath = `${path}.fields.${index}`;
      if (!isObject(item)) {
        this.errors.push({ field: this.at(itemPath), message: `${this.at(itemPath)} must be an object.` });
        return;
      }
      this.string(item, 'name', itemPath);
      this.string(item, 'type', itemPath, false);
      this.string(item, 'description', itemPath, false);
      if (item.fields !== undefined) this.schemaFields(item, itemPath);
    });
  }

  columnLineage(owner: Json, path: string): void {
    const fields = this.object(owner, 'fields', path, true);
    if (!fields) return;
    for (const [column, entry] of Object.entries(fields)) {
      const entryPath = `${path}.fields.${column}`;
      if (!isObject(entry)) {
        this.errors.push({ field: this.at(entryPath), message: `${this.at(entryPath)} must be an object.` });
        continue;
      }
      const inputs = this.array(entry, 'inputFields', entryPath, true);
      inputs?.forEach((input, index) => {
        const inputPath = `${entryPath}.inputFields.${index}`;
        if (!isObject(input)) {
          this.errors.push({
            field: this.at(inputPath),
            message: `${this.at(inputPath)} must be an object.`,
          });
          return;
        }
        this.string(input, 'namespace', inputPath);
        this.string(input, 'name', inputPath);
        this.string(input, 'field', inputPath);
      });
    }
  }

  assertions(owner: Json, path: string): void {
    const assertions = this.array(owner, 'assertions', path, true);
    assertions?.forEach((item, index) => {
      const itemPath = `${path}.assertions.${index}`;
      if (!isObject(item)) {
        this.errors.push({ field: this.at(itemPath), message: `${this.at(itemPath)} must be an object.` });
        return;
      }
      this.string(item, 'assertion', itemPath);
      this.string(item, 'column', itemPath, false);
      const field = this.at(`${itemPath}.success`);
      if (item.success === undefined) this.errors.push({ field, message: `${field} is required.` });
      else if (typeof item.success !== 'boolean')
        this.errors.push({ field, message: `${field} must be a boolean.` });
    });
  }

  runFacets(facets: Json, path: string): void {
    const error = this.object(facets, 'errorMessage', path, false);
    if (error) {
      this.string(error, 'message', `${path}.errorMessage`);
      this.string(error, 'programmingLanguage', `${path}.errorMessage`, false);
      this.string(error, 'stackTrace', `${path}.errorMessage`, false);
    }
    const parent = this.object(facets, 'parent', path, false);
    if (parent) {
      const run = this.object(parent, 'run', `${path}.parent`, true);
      if (run) {
        const runId = this.string(run, 'runId', `${path}.parent.run`);
        const field = this.at(`${path}.parent.run.runId`);
        if (runId !== undefined && !UUID_PATTERN.test(runId))
          this.errors.push({ field, message: `${field} must be a UUID.` });
      }
      const job = this.object(parent, 'job', `${path}.parent`, true);
      if (job) {
        this.string(job, 'namespace', `${path}.parent.job`);
        this.string(job, 'name', `${path}.parent.job`);
      }
    }
  }
}

/** The columns of a `schema` facet, flattened as connector sync writes them (nested fields as `parent.child`). */
export function schemaColumns(fields: SchemaField[], prefix = ''): { name: string; type: string | null }[] {
  return fields.flatMap((field) => [
    { name: prefix + field.name, type: field.type ?? null },
    ...(field.fields?.length ? schemaColumns(field.fields, `${prefix}${field.name}.`) : []),
  ]);
}

/** Every namespace an event names: its job's, its datasets', and those its column lineage reads from. */
export function namespacesOf(event: OlEvent): string[] {
  const found = new Set<string>();
  if (event.job) found.add(event.job.namespace);
  for (const dataset of datasetsOf(event)) {
    found.add(dataset.namespace);
    const lineage = dataset.facets?.columnLineage as
      { fields?: Record<string, { inputFields: { namespace: string }[] }> } | undefined;
    for (const entry of Object.values(lineage?.fields ?? {}))
      for (const input of entry.inputFields) found.add(input.namespace);
  }
  return [...found];
}

export function datasetsOf(event: OlEvent): OlDataset[] {
  return [...(event.inputs ?? []), ...(event.outputs ?? []), ...(event.dataset ? [event.dataset] : [])];
}
