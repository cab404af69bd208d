import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type TestAgent from 'supertest/lib/agent';
import { OpenLineageProcessor } from '../../src/modules/openlineage/openlineage-processor.service';
import type { TestApp } from './app';
import { bearer, TestSpace } from './factories';

export const OPENLINEAGE_URL = '/api/v1.0/openlineage/api/v1/lineage';

/** Real-shaped events: the specification's example and the Airflow and dbt integrations' payloads. */
export type Fixture = 'spec-run-start' | 'airflow-task-fail' | 'dbt-model-complete';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A fixture event with its namespaces renamed (so each test owns its
 * namespaces), a fresh run id unless one is given, and any top-level overrides.
 */
export function olEvent(fixture: Fixture, namespaces: Record<string, string>, overrides: Json = {}): Json {
  let text = readFileSync(join(__dirname, '..', 'fixtures', 'openlineage', `${fixture}.json`), 'utf8');
  for (const [from, to] of Object.entries(namespaces)) text = text.split(`"${from}"`).join(`"${to}"`);
  const event = JSON.parse(text) as Json;
  if (event.run) event.run.runId = randomUUID();
  return { ...event, ...overrides };
}

/** A unique namespace for one test. */
export const uniqueNamespace = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

export async function createApiKey(http: TestAgent, user: { token: string }): Promise<{ token: string }> {
  const res = await http
    .post('/api/v1.0/api-keys/me/api-keys')
    .set(bearer(user))
    .send({ name: 'openlineage' });
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.key as string };
}

export async function mapNamespaces(
  http: TestAgent,
  admin: { token: string },
  space: TestSpace,
  items: { namespace: string; create_products: boolean }[],
): Promise<void> {
  const res = await http
    .put(`/api/v1.0/spaces/${space.slug}/openlineage/namespaces`)
    .set(bearer(admin))
    .send({ items });
  if (res.status !== 200) throw new Error(`map namespaces: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Posts as the OpenLineage HTTP transport does: JSON, bearer API key. */
export function postEvents(t: TestApp, key: { token: string }, body: unknown) {
  return t.http
    .post(OPENLINEAGE_URL)
    .set(bearer(key))
    .set('content-type', 'application/json')
    .send(body as object);
}

/** Applies every stored event now (the processor also runs by itself). */
export async function applyEvents(t: TestApp): Promise<void> {
  await t.app.get(OpenLineageProcessor).drain();
}
