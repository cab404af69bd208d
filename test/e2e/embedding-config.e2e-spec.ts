import { randomUUID } from 'node:crypto';
import { embeddedRun, startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { EMBEDDING_CONFIG_BASE as BASE, embeddingAdmin } from '../support/embedding-admin';
import { EmbeddingProviderServer, startEmbeddingProviderServer } from '../support/embedding-provider-server';
import {
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { eventually } from '../support/server-process';

const API = '/api/v1.0';
const KEY = 'sk-embed-suite-key-abcdefghijklmnop';

const ROUTES: Array<[method: 'get' | 'post' | 'patch' | 'delete', path: string]> = [
  ['get', '/'],
  ['post', '/'],
  ['patch', '/'],
  ['delete', '/'],
  ['post', '/test-embedding'],
  ['post', '/reindex-products'],
  ['post', '/reindex-standard-items'],
  ['get', '/reindex-status'],
];

describe('embedding configuration over HTTP (local provider server through TRUSTED_AI_HOSTS)', () => {
  let provider: EmbeddingProviderServer;
  let t: TestApp;
  let root: TestUser;
  let member: TestUser;
  let space: TestSpace;
  const admin = embeddingAdmin(
    () => t,
    () => root,
  );
  const { settle, configure } = admin;
  const hosted = (name: keyof EmbeddingProviderServer['bases'], fields: Record<string, unknown> = {}) =>
    configure({
      provider: name,
      model_name: `${name}-embed-model`,
      dimensions: 24,
      api_key: KEY,
      api_base_url: provider.bases[name],
      ...fields,
    });
  const productCount = async () =>
    Number((await dbQuery<{ n: string }>(`SELECT count(*) AS n FROM products`))[0].n);
  /** Other suites' published standards pages (same database) set aside: products are then all there is to index. */
  const withoutPublishedPages = async (work: () => Promise<void>) => {
    const hidden = await dbQuery<{ id: string }>(
      `UPDATE standard_pages SET status = 'draft' WHERE status = 'published' RETURNING id`,
    );
    try {
      await work();
    } finally {
      await dbQuery(`UPDATE standard_pages SET status = 'published' WHERE id = ANY($1::uuid[])`, [
        hidden.map((row) => row.id),
      ]);
    }
  };
  const configStatus = async () => (await admin.get('/')).body.status as string;

  beforeAll(async () => {
    provider = await startEmbeddingProviderServer();
    t = await startApp({
      env: {
        TRUSTED_AI_HOSTS: provider.host,
        ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
        AI_MAX_RETRIES: '1',
        AI_RETRY_MAX_WAIT_MS: '10',
        EMBEDDING_BATCH_SIZE: '4',
      },
    });
    root = await rootUser(t.http);
    member = await createUser(t.http);
    space = await createSpace(t.http, root);
    await admin.delete();
  });
  afterEach(() => provider.reset());
  afterAll(async () => {
    await admin.delete();
    await t.close();
    await provider.close();
  });

  it('is for superadmins only: 401 without a token, 403 for a user', async () => {
    for (const [method, path] of ROUTES) {
      expectProblem(await t.http[method](BASE + path), 401);
      expectProblem(await t.http[method](BASE + path).set(bearer(member)), 403);
    }
  });

  it('answers the environment defaults when nothing is stored: the local hashing embedder', async () => {
    const res = await admin.get('/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: null,
      instance_id: null,
      provider: 'local',
      model_name: 'hashing-ngram-v1',
      dimensions: 384,
      api_key_set: false,
      api_base_url: null,
      is_enabled: true,
      index_version: 'v1',
      status: 'active',
      runtime_status: expect.stringMatching(/^(idle|ready)$/),
      runtime_error: null,
      vector_store: embeddedRun ? 'pgvector' : 'real_array',
      source: 'environment',
      updated_by: null,
      created_at: null,
      updated_at: null,
    });
  });

  it('answers 404 to PATCH and DELETE when no configuration is stored', async () => {
    expectProblem(await admin.patch({ is_enabled: false }), 404);
    expectProblem(await admin.delete(), 404);
  });

  it('refuses an invalid request contract with 422', async () => {
    let res = await admin.post('/', { provider: 'word2vec' });
    expectProblem(res, 422);
    expect(invalidFields(res)).toEqual(['provider']);
    res = await admin.post('/', { provider: 'local', dimensions: 4, extra: true, is_enabled: 'yes' });
    expect(invalidFields(res).sort()).toEqual(['dimensions', 'extra', 'is_enabled']);
    expectProblem(await admin.post('/', { provider: 'local', dimensions: 2001 }), 422);
    expectProblem(await admin.post('/', { provider: 'local', model_name: '' }), 422);
  });

  it('refuses unsafe base URLs with 422, even with ALLOW_PRIVATE_NETWORK_TARGETS', async () => {
    const refused = [
      'http://api.example.com/v1',
      'https://127.0.0.2/v1',
      'https://10.1.2.3',
      'https://169.254.169.254/latest',
      'https://[::1]/',
      'https://localhost/v1',
      'https://metadata.google.internal/computeMetadata/v1',
      'http://metadata/computeMetadata/v1',
      'https://metadata.goog/',
      'https://instance-data/latest',
      'https://instance-data.ec2.internal/latest',
      'https://[fe80::1]/',
      'https://[fe80::a9fe:a9fe]/latest',
      'https://[fd00:ec2::254]/latest',
      'https://[::ffff:169.254.169.254]/latest',
      'https://100.100.100.200/latest',
      'https://user:pass@api.example.com',
      'not a url',
    ];
    for (const url of refused) {
      const res = await admin.post('/', { provider: 'openai', api_base_url: url });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['api_base_url']);
    }
    const azure = await admin.post('/', { provider: 'azure_openai', model_name: 'embed' });
    expectProblem(azure, 422, /required for the azure_openai provider/);
    expect((await admin.get('/')).body.source).toBe('environment');
  });

  it('accepts a public HTTPS base URL and a TRUSTED_AI_HOSTS one', async () => {
    const open = await configure({ provider: 'openai', api_base_url: 'https://api.openai.com/v1/' });
    expect(open).toMatchObject({ provider: 'openai', api_base_url: 'https://api.openai.com/v1' });
    const trusted = await configure({ provider: 'voyage', api_base_url: provider.bases.voyage });
    expect(trusted.api_base_url).toBe(provider.bases.voyage);
    // A trusted host's URL still may not be changed to an untrusted private one.
    expectProblem(await admin.patch({ api_base_url: 'http://192.168.1.10/embed' }), 422);
  });

  it('creates (201), refuses a second create (409), hides the key and seals it at rest', async () => {
    await admin.delete();
    const res = await admin.post('/', {
      provider: 'openai',
      model_name: 'text-embedding-3-small',
      dimensions: 256,
      api_key: KEY,
      api_base_url: provider.bases.openai,
      index_version: 'v7',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      instance_id: null,
      source: 'database',
      provider: 'openai',
      model_name: 'text-embedding-3-small',
      dimensions: 256,
      api_key_set: true,
      is_enabled: true,
      index_version: 'v7',
      status: 'pending_reindex',
      runtime_status: 'not_applicable',
      updated_by: root.id,
    });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    const [row] = await dbQuery<{ api_key_sealed: string }>(`SELECT api_key_sealed FROM embedding_configs`);
    expect(row.api_key_sealed).toBeTruthy();
    expect(row.api_key_sealed).not.toContain(KEY);
    expectProblem(await admin.post('/', { provider: 'local' }), 409);
    expect(JSON.stringify((await admin.get('/')).body)).not.toContain(KEY);
  });

  it('moves status to pending_reindex only when provider, model or dimensions change', async () => {
    await configure({ provider: 'local' });
    const same = await admin.get('/');
    expect(same.body.status).toBe('active');
    let res = await admin.patch({ is_enabled: false, index_version: 'v2' });
    expect(res.body).toMatchObject({ status: 'active', is_enabled: false, index_version: 'v2' });
    res = await admin.patch({ is_enabled: true, dimensions: 64 });
    expect(res.body).toMatchObject({ status: 'pending_reindex', dimensions: 64 });
    await dbQuery(`UPDATE embedding_configs SET status = 'active'`);
    res = await admin.patch({ provider: 'cohere', api_base_url: provider.bases.cohere });
    expect(res.body).toMatchObject({
      status: 'pending_reindex',
      provider: 'cohere',
      runtime_status: 'not_applicable',
    });
    await dbQuery(`UPDATE embedding_configs SET status = 'active'`);
    res = await admin.patch({ model_name: 'embed-multilingual-v3.0' });
    expect(res.body.status).toBe('pending_reindex');
    res = await admin.patch({ api_key: 'new-key-123' });
    expect(res.body).toMatchObject({ status: 'pending_reindex', api_key_set: true });
    res = await admin.patch({ api_key: null });
    expect(res.body.api_key_set).toBe(false);
    // A new key embeds the same way: an active configuration stays active, its vectors kept.
    await dbQuery(`UPDATE embedding_configs SET status = 'active'`);
    res = await admin.patch({ api_key: 'rotated-key-789' });
    expect(res.body).toMatchObject({ status: 'active', api_key_set: true });
    expect((await admin.get('/')).body.status).toBe('active');
  });

  it('deletes with 204, then falls back to the environment; a second delete is 404', async () => {
    await configure({ provider: 'local', dimensions: 32 });
    expect((await admin.delete()).status).toBe(204);
    const res = await admin.get('/');
    expect(res.body).toMatchObject({ source: 'environment', provider: 'local', dimensions: 384, id: null });
    expectProblem(await admin.delete(), 404);
  });

  it('audits creation, changes (field names, never the key) and deletion', async () => {
    await configure({ provider: 'local', api_key: KEY });
    await admin.patch({ api_key: 'another-key-456' });
    await admin.delete();
    const rows = await dbQuery<{ action: string; details: Record<string, unknown> }>(
      `SELECT action, details FROM audit_log WHERE resource_type = 'embedding_config' ORDER BY created_at DESC LIMIT 3`,
    );
    expect(rows.map((r) => r.action)).toEqual([
      'embedding_config.deleted',
      'embedding_config.updated',
      'embedding_config.created',
    ]);
    expect(rows[1].details.fields).toEqual(['api_key']);
    expect(JSON.stringify(rows)).not.toContain(KEY);
    expect(JSON.stringify(rows)).not.toContain('another-key-456');
  });

  describe('test-embedding', () => {
    it('embeds with the local provider and reports it ready', async () => {
      await admin.delete();
      const res = await admin.post('/test-embedding');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, error: null, dimensions: 384 });
      expect((await admin.get('/')).body.runtime_status).toBe('ready');
    });

    it('speaks the OpenAI wire format', async () => {
      await hosted('openai');
      const res = await admin.post('/test-embedding');
      expect(res.body).toEqual({ success: true, error: null, dimensions: 24 });
      const [request] = provider.requests;
      expect(request).toMatchObject({ format: 'openai', path: '/openai/v1/embeddings' });
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body).toEqual({
        model: 'openai-embed-model',
        input: [expect.any(String)],
        dimensions: 24,
        encoding_format: 'float',
      });
    });

    it('speaks the Azure OpenAI wire format (deployment in the path, api-key header)', async () => {
      await hosted('azure_openai', { model_name: 'my-embedding-deployment' });
      expect((await admin.post('/test-embedding')).body).toEqual({
        success: true,
        error: null,
        dimensions: 24,
      });
      const [request] = provider.requests;
      expect(request.format).toBe('azure');
      expect(request.path).toBe(
        '/openai/deployments/my-embedding-deployment/embeddings?api-version=2024-10-21',
      );
      expect(request.headers['api-key']).toBe(KEY);
      expect(request.headers.authorization).toBeUndefined();
      expect(request.body).toEqual({ input: [expect.any(String)], dimensions: 24, encoding_format: 'float' });
    });

    it('speaks the Cohere v2 embed wire format', async () => {
      await hosted('cohere');
      expect((await admin.post('/test-embedding')).body).toEqual({
        success: true,
        error: null,
        dimensions: 24,
      });
      const [request] = provider.requests;
      expect(request).toMatchObject({ format: 'cohere', path: '/cohere/v2/embed' });
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body).toEqual({
        model: 'cohere-embed-model',
        texts: [expect.any(String)],
        input_type: 'search_query',
        embedding_types: ['float'],
        output_dimension: 24,
      });
    });

    it('speaks the Voyage wire format', async () => {
      await hosted('voyage');
      expect((await admin.post('/test-embedding')).body).toEqual({
        success: true,
        error: null,
        dimensions: 24,
      });
      const [request] = provider.requests;
      expect(request).toMatchObject({ format: 'voyage', path: '/voyage/v1/embeddings' });
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body).toEqual({
        model: 'voyage-embed-model',
        input: [expect.any(String)],
        input_type: 'query',
        output_dimension: 24,
      });
    });

    it('answers success: false (not a 5xx) when the provider fails, without the key', async () => {
      await hosted('openai');
      provider.respondWith({ status: 401, error: `Incorrect API key provided: ${KEY}` });
      const res = await admin.post('/test-embedding');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: false,
        error: expect.stringMatching(/answered 401/),
        dimensions: null,
      });
      expect(res.body.error).not.toContain(KEY);

      provider.respondWith({ dimensions: 10 });
      const wrongSize = await admin.post('/test-embedding');
      expect(wrongSize.body).toMatchObject({ success: false, error: expect.stringMatching(/10 dimensions/) });

      await provider.close().catch(() => undefined);
      provider = await startEmbeddingProviderServer();
      await admin.patch({ api_base_url: 'https://unreachable.invalid/v1' });
      const unreachable = await admin.post('/test-embedding');
      expect(unreachable.body).toMatchObject({ success: false, dimensions: null });
    });

    it('retries a 429 and succeeds', async () => {
      await hosted('voyage');
      provider.enqueue({ status: 429, error: 'slow down' });
      expect((await admin.post('/test-embedding')).body.success).toBe(true);
      expect(provider.requests).toHaveLength(2);
    });
  });

  describe('reindexing', () => {
    it('reindexes every product in bounded batches to the end; without published standards pages, products alone make the configuration active', async () => {
      const names = Array.from({ length: 9 }, (_, i) => `Reindex product ${i} ${randomUUID().slice(0, 6)}`);
      for (const name of names) await createProduct(t.http, root, space, { name });
      await settle();
      await hosted('cohere');
      provider.reset();
      expect((await admin.get('/')).body.status).toBe('pending_reindex');
      expect(await dbQuery(`SELECT 1 FROM item_embeddings`)).toEqual([]);

      // Runs other suites left on this database (one for all suites on the embedded one) would count too.
      await dbQuery(`DELETE FROM embedding_reindex_runs`);
      const total = await productCount();
      await withoutPublishedPages(async () => {
        const res = await admin.post('/reindex-products');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: expect.stringMatching(/reindex-status/), total });
        await settle();
      });

      const status = await admin.get('/reindex-status');
      expect(status.body).toMatchObject({
        state: 'succeeded',
        total,
        done: total,
        failed: 0,
        started_at: expect.stringMatching(/Z$/),
        finished_at: expect.stringMatching(/Z$/),
      });
      expect(status.body.runs).toEqual([
        expect.objectContaining({ item_type: 'product', state: 'succeeded' }),
      ]);
      expect((await admin.get('/')).body.status).toBe('active');
      expect(provider.requests.every((r) => r.texts.length <= 4)).toBe(true);
      expect(provider.requests.map((r) => r.body.input_type)).toEqual(
        provider.requests.map(() => 'search_document'),
      );
      const texts = provider.requests.flatMap((r) => r.texts);
      for (const name of names) expect(texts.some((text) => text.startsWith(name))).toBe(true);
      const vectors = await dbQuery<{ n: string; d: number }>(
        `SELECT count(*) AS n, min(dimensions) AS d FROM item_embeddings WHERE item_type = 'product'`,
      );
      expect(Number(vectors[0].n)).toBe(total);
      expect(vectors[0].d).toBe(24);

      // A second run finds every text unchanged: no provider call.
      provider.reset();
      await admin.post('/reindex-products');
      await settle();
      expect((await admin.get('/reindex-status')).body).toMatchObject({ state: 'succeeded', done: total });
      expect(provider.requests).toHaveLength(0);
      // Two whole reindexes: HNSW inserts run in WASM on the embedded database.
    }, 120_000);

    it('shows the progress of a run under way on reindex-status', async () => {
      for (let i = 0; i < 9; i++) await createProduct(t.http, root, space, { name: `Progress ${i}` });
      await settle();
      await hosted('openai');
      // Batches of 4 at 300 ms each: the run stays under way across several polls.
      provider.respondWith({ delayMs: 300 });
      const { total } = (await admin.post('/reindex-products')).body;
      const productRun = (body: { runs: Array<{ item_type: string; done: number }> }) =>
        body.runs.find((run) => run.item_type === 'product')!;
      const progress = await eventually('a batch committed', async () => {
        const body = (await admin.get('/reindex-status')).body;
        return productRun(body).done > 0 ? body : undefined;
      });
      expect(progress).toMatchObject({
        state: 'running',
        started_at: expect.stringMatching(/Z$/),
        finished_at: null,
      });
      expect(progress.done).toBeLessThan(progress.total);
      const run = productRun(progress);
      expect(run).toMatchObject({ state: 'running', total, failed: 0, finished_at: null });
      expect(run.done).toBeGreaterThan(0);
      expect(run.done).toBeLessThan(total);
      provider.respondWith({});
      await settle();
      const finished = (await admin.get('/reindex-status')).body;
      expect(finished.finished_at).toMatch(/Z$/);
      expect(productRun(finished)).toMatchObject({ state: 'succeeded', done: total });
    }, 120_000);

    it('reindexes published standards pages only', async () => {
      await configure({ provider: 'local', dimensions: 48 });
      const pages = `${API}/spaces/${space.slug}/standards`;
      await t.http.post(pages).set(bearer(root)).send({ title: 'Draft standard' });
      const published = await t.http
        .post(pages)
        .set(bearer(root))
        .send({ title: 'Data classification', status: 'published' });
      await settle();
      const [{ n }] = await dbQuery<{ n: string }>(
        `SELECT count(*) AS n FROM standard_pages WHERE status = 'published'`,
      );
      const res = await admin.post('/reindex-standard-items');
      expect(res.body.total).toBe(Number(n));
      await settle();
      const status = (await admin.get('/reindex-status')).body;
      const run = status.runs.find((r: { item_type: string }) => r.item_type === 'standard_page');
      expect(run).toMatchObject({ state: 'succeeded', total: Number(n), done: Number(n), failed: 0 });
      const rows = await dbQuery<{ item_id: string }>(
        `SELECT item_id FROM item_embeddings WHERE item_type = 'standard_page'`,
      );
      expect(rows.map((r) => r.item_id)).toContain(published.body.id);
      expect(rows).toHaveLength(Number(n));
    });

    it('ends failed, and sets the configuration failed, when the provider keeps failing', async () => {
      await createProduct(t.http, root, space, { name: `Failing ${randomUUID()}` });
      await settle();
      await hosted('openai');
      provider.respondWith({ status: 400, error: 'input too long' });
      const { total } = (await admin.post('/reindex-products')).body;
      await settle();
      const status = (await admin.get('/reindex-status')).body;
      const run = status.runs.find((r: { item_type: string }) => r.item_type === 'product');
      expect(run).toMatchObject({ state: 'failed', error: expect.stringMatching(/input too long/) });
      expect(run.failed).toBeGreaterThan(0);
      expect(run.done + run.failed).toBeLessThanOrEqual(total);
      expect(status.state).toBe('failed');
      expect((await admin.get('/')).body.status).toBe('failed');
    });

    it('answers 409 while embeddings are disabled', async () => {
      await configure({ provider: 'local', is_enabled: false });
      expectProblem(await admin.post('/reindex-products'), 409);
      expectProblem(await admin.post('/reindex-standard-items'), 409);
    });

    it('rebuilds on a change of dimensions: vectors of the old size are dropped, never mixed', async () => {
      await configure({ provider: 'local', dimensions: 40 });
      await t.http
        .post(`${API}/spaces/${space.slug}/standards`)
        .set(bearer(root))
        .send({ title: 'Dimension change standard', status: 'published' });
      await admin.post('/reindex-products');
      await admin.post('/reindex-standard-items');
      await settle();
      expect(await configStatus()).toBe('active');
      expect(
        (await dbQuery<{ d: number }>(`SELECT DISTINCT dimensions AS d FROM item_embeddings`)).map(
          (r) => r.d,
        ),
      ).toEqual([40]);
      const res = await admin.patch({ dimensions: 56 });
      expect(res.body.status).toBe('pending_reindex');
      expect(await dbQuery(`SELECT 1 FROM item_embeddings`)).toEqual([]);
      if (embeddedRun) {
        const indexes = await dbQuery<{ indexname: string }>(
          `SELECT indexname FROM pg_indexes WHERE tablename = 'item_embeddings' AND indexname LIKE 'item_embeddings_hnsw_%'`,
        );
        expect(indexes.map((i) => i.indexname)).toEqual(['item_embeddings_hnsw_56']);
      }
      // The standards pages alone are not the whole index: products lost their vectors too.
      await admin.post('/reindex-standard-items');
      await settle();
      expect((await admin.get('/reindex-status')).body.runs).toEqual([
        expect.objectContaining({ item_type: 'product', state: 'succeeded' }),
        expect.objectContaining({ item_type: 'standard_page', state: 'succeeded' }),
      ]);
      expect(await configStatus()).toBe('pending_reindex');
      await admin.post('/reindex-products');
      await settle();
      expect(
        (await dbQuery<{ d: number }>(`SELECT DISTINCT dimensions AS d FROM item_embeddings`)).map(
          (r) => r.d,
        ),
      ).toEqual([56]);
      expect(await configStatus()).toBe('active');
    });

    it('ends failed when the other type failed with the same configuration, whatever this run did', async () => {
      await t.http
        .post(`${API}/spaces/${space.slug}/standards`)
        .set(bearer(root))
        .send({ title: 'Failing standard', status: 'published' });
      await hosted('openai');
      provider.respondWith({ status: 400, error: 'input too long' });
      await admin.post('/reindex-standard-items');
      await settle();
      expect(await configStatus()).toBe('failed');
      provider.respondWith({});
      await admin.post('/reindex-products');
      await settle();
      const { runs } = (await admin.get('/reindex-status')).body;
      expect(runs.map((r: { state: string }) => r.state)).toEqual(['succeeded', 'failed']);
      expect(await configStatus()).toBe('failed');
    });
  });
});
