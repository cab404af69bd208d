import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dropDatabase, queryDb, workerDatabase } from '../support/database';
import { bearer, rootUser, TestUser } from '../support/factories';
import { createInstance } from '../support/instances';
import { expectProblem } from '../support/problem';

// Instance-scoped embedding configuration overriding the global one (api-spec: instance scope).
const API = '/api/v1.0';
const ADMIN = `${API}/admin/instances`;
const CONFIG = `${API}/admin/embedding-config/`;
const worker = process.env.JEST_WORKER_ID ?? '1';
const dbName = `${workerDatabase(worker)}_cfg`;

describe('Instances: instance-scoped embedding configuration', () => {
  let t: TestApp;
  let root: TestUser;
  let onInstance: { token: string };
  let instanceId: string;
  let instanceUrl: string;

  beforeAll(async () => {
    t = await startApp();
    root = await rootUser(t.http);
    const instance = await createInstance(t.http, root, {
      slug: `cfg-${worker}`,
      name: 'Config',
      database: dbName,
    });
    instanceId = instance.id;
    instanceUrl = instance.databaseUrl;
    onInstance = { token: instance.token };
    await t.http.delete(CONFIG).set(bearer(root));
  });
  afterAll(async () => {
    await t.http.delete(CONFIG).set(bearer(root));
    await t.http.delete(`${ADMIN}/${instanceId}?force=true`).set(bearer(root));
    await t.close();
    await dropDatabase(dbName);
  });

  it('lets an instance override the global configuration, and fall back to it', async () => {
    // No configuration anywhere: both see the environment's.
    const before = await t.http.get(CONFIG).set(bearer(onInstance));
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ source: 'environment', instance_id: null, dimensions: 384 });

    const global = await t.http.post(CONFIG).set(bearer(root)).send({ provider: 'local', dimensions: 128 });
    expect(global.status).toBe(201);
    expect(global.body).toMatchObject({ instance_id: null, dimensions: 128 });
    // Without an override the instance uses the global configuration.
    const inherited = await t.http.get(CONFIG).set(bearer(onInstance));
    expect(inherited.body).toMatchObject({ source: 'database', instance_id: null, dimensions: 128 });
    expectProblem(await t.http.patch(CONFIG).set(bearer(onInstance)).send({ dimensions: 64 }), 404);
    expectProblem(await t.http.delete(CONFIG).set(bearer(onInstance)), 404);

    const override = await t.http
      .post(CONFIG)
      .set(bearer(onInstance))
      .set('X-Instance-Id', instanceId)
      .send({ provider: 'local', dimensions: 256, index_version: 'inst-1' });
    expect(override.status).toBe(201);
    expect(override.body).toMatchObject({
      source: 'database',
      instance_id: instanceId,
      provider: 'local',
      dimensions: 256,
      index_version: 'inst-1',
    });
    expectProblem(await t.http.post(CONFIG).set(bearer(onInstance)).send({ provider: 'local' }), 409);
    // The override lives in the instance database; the control plane keeps only the global one.
    const [stored] = await queryDb<{ scope: string; instance_id: string }>(
      instanceUrl,
      'SELECT scope, instance_id FROM embedding_configs',
    );
    expect(stored).toEqual({ scope: `instance:${instanceId}`, instance_id: instanceId });
    const deployment = await queryDb<{ scope: string }>(
      workerDatabaseUrl(),
      'SELECT scope FROM embedding_configs',
    );
    expect(deployment).toEqual([{ scope: 'global' }]);

    // Each side sees its own.
    expect((await t.http.get(CONFIG).set(bearer(root))).body).toMatchObject({
      instance_id: null,
      dimensions: 128,
    });
    const patched = await t.http.patch(CONFIG).set(bearer(onInstance)).send({ dimensions: 64 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      instance_id: instanceId,
      dimensions: 64,
      status: 'pending_reindex',
    });
    expect((await t.http.get(CONFIG).set(bearer(root))).body.dimensions).toBe(128);

    // X-Instance-Id only confirms the token's instance: another instance and an unknown one answer the same 403.
    const other = await t.http.get(CONFIG).set(bearer(onInstance)).set('X-Instance-Id', DEFAULT_INSTANCE_ID);
    expectProblem(other, 403);
    expect(other.body.code).toBe('instance_mismatch');
    const unknown = await t.http
      .get(CONFIG)
      .set(bearer(onInstance))
      .set('X-Instance-Id', crypto.randomUUID());
    expectProblem(unknown, 403);
    const { instance: _otherPath, ...otherBody } = other.body;
    const { instance: _unknownPath, ...unknownBody } = unknown.body;
    expect(unknownBody).toEqual(otherBody);

    expect((await t.http.delete(CONFIG).set(bearer(onInstance))).status).toBe(204);
    const fallback = await t.http.get(CONFIG).set(bearer(onInstance));
    expect(fallback.body).toMatchObject({ source: 'database', instance_id: null, dimensions: 128 });
  });

  it('lets an instance override the global AI provider configuration too', async () => {
    const AI = `${API}/admin/ai-config`;
    await t.http.delete(AI).set(bearer(root));
    const global = await t.http
      .post(AI)
      .set(bearer(root))
      .send({ provider: 'openai', model_name: 'global-model' });
    expect(global.status).toBe(201);
    expect((await t.http.get(AI).set(bearer(onInstance))).body.model_name).toBe('global-model');
    const override = await t.http
      .post(AI)
      .set(bearer(onInstance))
      .send({ provider: 'anthropic', model_name: 'instance-model' });
    expect(override.status).toBe(201);
    expect(override.body).toMatchObject({
      source: 'database',
      provider: 'anthropic',
      model_name: 'instance-model',
    });
    expect((await t.http.get(AI).set(bearer(root))).body.model_name).toBe('global-model');
    const [stored] = await queryDb<{ scope: string }>(instanceUrl, 'SELECT scope FROM ai_configs');
    expect(stored.scope).toBe(`instance:${instanceId}`);
    expect((await t.http.delete(AI).set(bearer(onInstance))).status).toBe(204);
    expect((await t.http.get(AI).set(bearer(onInstance))).body.model_name).toBe('global-model');
    expect((await t.http.delete(AI).set(bearer(root))).status).toBe(204);
  });

  it('runs reindexing of an instance in its database', async () => {
    const res = await t.http.post(`${CONFIG}reindex-products`).set(bearer(onInstance));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), total: 0 });
    const status = await t.http.get(`${CONFIG}reindex-status`).set(bearer(onInstance));
    expect(status.status).toBe(200);
  });
});
