// Issue 30: OpenLineage ingestion. 16 concurrent producers post realistic RunEvents (3 inputs, 2
// outputs, schema facets on each, column lineage) one per request, as the HTTP transport does:
// events/s and latency at the endpoint, then how long until what they say is readable over REST
// (the processor's lag), at rest and right after the load.
import { randomUUID } from 'node:crypto';
import { measure, register, report, scratchDatabase, signIn, startProcess } from './lib.mjs';

// BENCH_PROFILE=/tmp/prof npm run bench -- openlineage   (the server's processes under --cpu-prof)
// BENCH_PG_SOCKET_DIR=/var/run/postgresql ...            (the server reaches PostgreSQL over its Unix socket)
const PROFILE_DIR = process.env.BENCH_PROFILE;
const SOCKET_DIR = process.env.BENCH_PG_SOCKET_DIR;
const PRODUCERS = 16;
const JOBS = 200;
const DATASETS = 'postgres://bench-warehouse:5432';
const JOB_NAMESPACE = 'airflow-bench';

const columns = (table) =>
  Array.from({ length: 12 }, (_, i) => ({ name: `${table}_c${i}`, type: i % 3 ? 'text' : 'bigint' }));
const dataset = (name, facets = {}) => ({
  namespace: DATASETS,
  name,
  facets: {
    schema: {
      _producer: 'https://github.com/apache/airflow/tree/providers-openlineage/1.7.1',
      _schemaURL: 'https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
      fields: columns(name.split('.').pop()),
    },
    ...facets,
  },
});

/** One task run of job `j` (reads 3 tables, writes 2), START or COMPLETE. */
function runEvent(j, eventType, runId) {
  const inputs = [0, 1, 2].map((k) => `shop.raw.t${(j * 3 + k) % 600}`);
  const outputs = [0, 1].map((k) => `shop.mart.j${j}_o${k}`);
  return {
    eventType,
    eventTime: new Date().toISOString(),
    producer: 'https://github.com/apache/airflow/tree/providers-openlineage/1.7.1',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId, facets: { nominalTime: { nominalStartTime: new Date().toISOString() } } },
    job: { namespace: JOB_NAMESPACE, name: `dag_${j % 20}.task_${j}` },
    inputs: inputs.map((name) => dataset(name)),
    outputs: outputs.map((name) =>
      dataset(name, {
        columnLineage: {
          fields: {
            [`${name.split('.').pop()}_c0`]: { inputFields: [{ namespace: DATASETS, name: inputs[0], field: 'x' }] },
          },
        },
      }),
    ),
  };
}

async function waitUntil(check, timeoutMs = 120_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - started;
}

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_openlineage');
  const api = await startProcess({
    env: { DATABASE_URL: SOCKET_DIR ? `${url}?host=${SOCKET_DIR}` : url },
    nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  });
  try {
    const password = 'bench-password-1';
    await register(api.base, 'ol@example.test', password);
    const token = await signIn(api.base, 'ol@example.test', password);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const space = await (
      await fetch(`${api.base}/api/v1.0/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench lineage' }) })
    ).json();
    const mapped = await fetch(`${api.base}/api/v1.0/spaces/${space.slug}/openlineage/namespaces`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({
        items: [
          { namespace: DATASETS, create_products: true },
          { namespace: JOB_NAMESPACE, create_products: false },
        ],
      }),
    });
    if (mapped.status !== 200) throw new Error(`mapping: ${mapped.status} ${await mapped.text()}`);
    const key = (
      await (
        await fetch(`${api.base}/api/v1.0/api-keys/me/api-keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'ol' }) })
      ).json()
    ).key;
    const producer = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = (body) =>
      fetch(`${api.base}/api/v1.0/openlineage/api/v1/lineage`, { method: 'POST', headers: producer, body: JSON.stringify(body) });
    const pending = async () =>
      Number((await client.query(`SELECT count(*) AS n FROM openlineage_events WHERE processed_at IS NULL`)).rows[0].n);

    // Warm-up: every job runs once, so products and edges exist (steady state: runs repeat known lineage).
    for (let j = 0; j < JOBS; j += 20) {
      const batch = Array.from({ length: 20 }, (_, k) => runEvent(j + k, 'COMPLETE', randomUUID()));
      const res = await post(batch);
      if (res.status !== 201) throw new Error(`warm-up: ${res.status} ${await res.text()}`);
    }
    await waitUntil(async () => (await pending()) === 0);

    // The load: each request one event; a run's START then its COMPLETE.
    let n = 0;
    const runs = new Map();
    const before = Number((await client.query(`SELECT count(*) AS n FROM openlineage_events`)).rows[0].n);
    const load = await measure(`POST openlineage, ${PRODUCERS} producers`, {
      url: `${api.base}/api/v1.0/openlineage/api/v1/lineage`,
      connections: PRODUCERS,
      method: 'POST',
      headers: producer,
      requests: [
        {
          setupRequest: (req) => {
            const i = n++;
            const j = Math.floor(i / 2) % JOBS;
            let runId = runs.get(j);
            if (i % 2 === 0 || !runId) runs.set(j, (runId = randomUUID()));
            return { ...req, body: JSON.stringify(runEvent(j, i % 2 === 0 ? 'START' : 'COMPLETE', runId)) };
          },
        },
      ],
    });
    const loadEnded = Date.now();
    const backlog = await pending();
    const drainMs = await waitUntil(async () => (await pending()) === 0, 600_000);
    const stored = Number((await client.query(`SELECT count(*) AS n FROM openlineage_events`)).rows[0].n) - before;
    const processedPerSecond = Math.round(stored / ((Date.now() - loadEnded) / 1000 + Number(process.env.BENCH_DURATION ?? 10)));
    // For scale on a shared machine: the cheapest authenticated read with the same key, same producers.
    const baseline = await measure('GET namespaces (baseline), same key', {
      url: `${api.base}/api/v1.0/spaces/${space.slug}/openlineage/namespaces`,
      connections: PRODUCERS,
      headers: producer,
    });
    report([load, baseline]);
    console.log(`events stored during the load: ${stored}; pending when it ended: ${backlog}; drained ${drainMs} ms later`);
    console.log(`processor throughput over load + drain: ~${processedPerSecond} events/s`);

    // Readable: a run with a new output, until its edge shows on the REST lineage read.
    const lags = [];
    for (let i = 0; i < 20; i++) {
      const event = runEvent(i, 'COMPLETE', randomUUID());
      event.outputs = [dataset(`shop.fresh.r${i}_${randomUUID().slice(0, 6)}`)];
      const sent = Date.now();
      if ((await post(event)).status !== 201) throw new Error('post failed');
      await waitUntil(async () => {
        const res = await client.query(
          `SELECT i.product_id FROM dataset_identities i WHERE i.namespace = $1 AND i.name = $2`,
          [DATASETS, event.outputs[0].name],
        );
        if (!res.rows.length) return false;
        const graph = await (
          await fetch(`${api.base}/api/v1.0/catalog/spaces/${space.slug}/products/${res.rows[0].product_id}/lineage?direction=upstream&depth=1`, { headers: auth })
        ).json();
        return graph.edges.length === 3;
      });
      lags.push(Date.now() - sent);
    }
    lags.sort((a, b) => a - b);
    console.log(`post -> lineage readable over REST, at rest: p50 ${lags[10]} ms, max ${lags[19]} ms`);
  } finally {
    await api.stop();
    await client.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
