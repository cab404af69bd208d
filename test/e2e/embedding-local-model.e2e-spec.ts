import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { EMBEDDING_CONFIG_BASE as BASE, embeddingAdmin } from '../support/embedding-admin';
import {
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { TINY_MODEL_DIMENSIONS, writeTinyModel } from '../support/local-model';
import { expectProblem, invalidFields } from '../support/problem';
import { eventually } from '../support/server-process';

const API = '/api/v1.0';

describe('local provider with a Model2Vec model directory (EMBEDDING_LOCAL_MODELS_DIR)', () => {
  let modelsDir: string;
  let t: TestApp;
  let root: TestUser;
  let owner: TestUser;
  let space: TestSpace;
  const products: Record<string, string> = {};
  const admin = embeddingAdmin(
    () => t,
    () => root,
  );
  const { settle, configure } = admin;
  const runtimeBecomes = (status: string) =>
    eventually(`runtime_status ${status}`, async () => {
      const body = (await admin.get()).body;
      return body.runtime_status === status ? body : undefined;
    });
  const productRun = async () => {
    const { runs } = (await t.http.get(`${BASE}/reindex-status`).set(bearer(root))).body;
    return runs.find((run: { item_type: string }) => run.item_type === 'product');
  };
  const semantic = async (query: string, mode = 'semantic') => {
    const res = await t.http.post(`${API}/search`).set(bearer(owner)).send({ query, mode });
    if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as {
      items: Array<{ type: string; id: string; score: number }>;
      total: number;
      total_relation: string;
    };
  };

  beforeAll(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'verity-models-'));
    writeTinyModel(modelsDir, 'tiny-potion');
    writeTinyModel(modelsDir, 'tiny-potion-f16', { dtype: 'F16' });
    // Its header is sound (the configuration is accepted); its table has rows the tokenizer does not know.
    writeTinyModel(modelsDir, 'broken-vocab', { extraRows: 3 });
    writeFileSync(join(modelsDir, 'a-file'), 'not a model directory');
    t = await startApp({ env: { EMBEDDING_LOCAL_MODELS_DIR: modelsDir } });
    root = await rootUser(t.http);
    owner = await createUser(t.http, { first_name: 'Owner' });
    space = await createSpace(t.http, owner);
    // Their texts share no word with the searches below: only the model's meaning links them.
    products.finance = (
      await createProduct(t.http, owner, space, {
        name: 'Invoice ledger',
        description: 'Billing and payment records',
      })
    ).id;
    products.weather = (
      await createProduct(t.http, owner, space, { name: 'Storm forecast', description: 'Rain and wind' })
    ).id;
    products.health = (
      await createProduct(t.http, owner, space, { name: 'Clinic patients', description: 'Hospital doctor' })
    ).id;
    await settle();
    await admin.delete();
  });
  afterAll(async () => {
    await admin.delete();
    await t.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('loads a model directory in the background (warming, then ready) and takes its dimensions from it', async () => {
    const created = await configure({ provider: 'local', model_name: 'tiny-potion' });
    expect(created).toMatchObject({
      provider: 'local',
      model_name: 'tiny-potion',
      dimensions: TINY_MODEL_DIMENSIONS,
      status: 'pending_reindex',
      runtime_status: expect.stringMatching(/^(warming|ready)$/),
      runtime_error: null,
    });
    expect(await runtimeBecomes('ready')).toMatchObject({ runtime_error: null, source: 'database' });
  });

  it('test-embedding answers the model dimensions', async () => {
    await configure({ provider: 'local', model_name: 'tiny-potion-f16' });
    const res = await admin.post('/test-embedding');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, error: null, dimensions: TINY_MODEL_DIMENSIONS });
    expect((await admin.get()).body.runtime_status).toBe('ready');
  });

  it('accepts the model size, refuses another one (422) and fills it in on a change of model', async () => {
    expect(
      (await configure({ provider: 'local', model_name: 'tiny-potion', dimensions: TINY_MODEL_DIMENSIONS }))
        .dimensions,
    ).toBe(TINY_MODEL_DIMENSIONS);
    await admin.delete();
    const wrong = await admin.post('/', { provider: 'local', model_name: 'tiny-potion', dimensions: 384 });
    expectProblem(wrong, 422, /makes vectors of 16 dimensions, not 384/);
    expect(invalidFields(wrong)).toEqual(['dimensions']);

    await configure({ provider: 'local', dimensions: 64 });
    let res = await admin.patch({ model_name: 'tiny-potion' });
    expect(res.body).toMatchObject({ model_name: 'tiny-potion', dimensions: 16, status: 'pending_reindex' });
    res = await admin.patch({ dimensions: 32 });
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['dimensions']);
    // The built-in hashing model takes any size again.
    res = await admin.patch({ model_name: 'hashing-ngram-v1', dimensions: 32 });
    expect(res.body).toMatchObject({ model_name: 'hashing-ngram-v1', dimensions: 32 });
  });

  it('refuses (422) a model name that is not a plain directory name, or no directory under the root', async () => {
    await admin.delete();
    const names = ['../tiny-potion', 'x/tiny-potion', modelsDir, '..', '.hidden', 'absent-model', 'a-file'];
    for (const model_name of names) {
      const res = await admin.post('/', { provider: 'local', model_name });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['model_name']);
    }
    await configure({ provider: 'local' });
    const res = await admin.patch({ model_name: '../../etc' });
    expectProblem(res, 422, /not a plain directory name/);
    expect((await admin.get()).body.model_name).toBe('hashing-ngram-v1');
  });

  it('reindexes products through the model, and semantic search finds them by meaning', async () => {
    await configure({ provider: 'local', model_name: 'tiny-potion' });
    const { total } = (await admin.post('/reindex-products')).body;
    // Other suites on this database may have published standards pages: both types make it active.
    expect((await admin.post('/reindex-standard-items')).status).toBe(200);
    await settle();
    expect(await productRun()).toMatchObject({ state: 'succeeded', total, done: total, failed: 0 });
    expect((await admin.get()).body.status).toBe('active');
    const stored = await dbQuery<{ item_id: string; dimensions: number }>(
      `SELECT item_id, dimensions FROM item_embeddings WHERE item_id = ANY($1::uuid[])`,
      [Object.values(products)],
    );
    expect(stored.map((r) => r.dimensions)).toEqual([16, 16, 16]);

    // No product mentions these words: keyword search finds nothing, the model's neighbours do.
    expect((await semantic('revenue', 'keyword')).total).toBe(0);
    const money = await semantic('revenue');
    expect(money.items[0]).toMatchObject({ type: 'product', id: products.finance });
    expect(money.items[0].score).toBeGreaterThan(0.8);
    expect((await semantic('weather temperature')).items[0].id).toBe(products.weather);
    expect((await semantic('the hospital staff')).items[0].id).toBe(products.health);
  });

  it('a broken model reaches failed with its reason; embeddings then fail as a failing provider does', async () => {
    await configure({ provider: 'local', model_name: 'broken-vocab' });
    const failed = await runtimeBecomes('failed');
    expect(failed.runtime_error).toMatch(/tokenizer knows \d+ tokens; the embedding table has \d+ rows/);

    const test = await admin.post('/test-embedding');
    expect(test.body).toEqual({
      success: false,
      error: expect.stringMatching(/local model "broken-vocab" could not be loaded/),
      dimensions: null,
    });
    // Search falls back to keywords: semantic answers nothing, hybrid what keyword answers.
    expect(await semantic('invoice')).toEqual({ items: [], total: 0, total_relation: 'eq' });
    expect((await semantic('invoice', 'hybrid')).items.map((i) => i.id)).toEqual([products.finance]);

    await admin.post('/reindex-products');
    await settle();
    const run = await productRun();
    expect(run.state).toBe('failed');
    expect(run.failed).toBeGreaterThan(0);
    expect((await admin.get()).body.status).toBe('failed');

    // Fixed on disk, the model loads on the next test-embedding.
    writeTinyModel(modelsDir, 'broken-vocab');
    expect((await admin.post('/test-embedding')).body).toMatchObject({ success: true, dimensions: 16 });
    expect((await admin.get()).body).toMatchObject({ runtime_status: 'ready', runtime_error: null });
  });

  it('serves an environment configuration naming a model directory, its size read from the model', async () => {
    await admin.delete();
    const env = await startApp({
      env: { EMBEDDING_LOCAL_MODELS_DIR: modelsDir, EMBEDDING_MODEL: 'tiny-potion' },
    });
    try {
      // Each app has its own signing secret: sign in again.
      const envRoot = await rootUser(env.http);
      const config = await eventually('the environment model ready', async () => {
        const body = (await env.http.get(`${BASE}/`).set(bearer(envRoot))).body;
        return body.runtime_status === 'ready' ? body : undefined;
      });
      expect(config).toMatchObject({
        source: 'environment',
        provider: 'local',
        model_name: 'tiny-potion',
        dimensions: TINY_MODEL_DIMENSIONS,
      });
    } finally {
      await env.close();
    }
  });
});
