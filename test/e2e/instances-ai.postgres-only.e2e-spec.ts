import { AiProviderServer, startAiProviderServer } from '../support/ai-provider-server';
import { startApp, TestApp } from '../support/app';
import { dropDatabase, workerDatabase } from '../support/database';
import { bearer, createProduct, createSpace, rootUser, TestUser } from '../support/factories';
import { createInstance } from '../support/instances';
import { expectProblem } from '../support/problem';

// AI calls on an instance: its own provider configuration, else the global one (docs/decisions.md#instances).
const API = '/api/v1.0';
const AI = `${API}/admin/ai-config/`;
const worker = process.env.JEST_WORKER_ID ?? '1';
const dbName = `${workerDatabase(worker)}_ai`;
const HYPOTHESES = { hypotheses: [{ cause: 'A late upstream load', confidence: 0.6, evidence: ['lag'] }] };

describe('Instances: AI calls use the instance configuration, else the global one', () => {
  let provider: AiProviderServer;
  let t: TestApp;
  let root: TestUser;
  let onInstance: { token: string };
  let instanceId: string;

  beforeAll(async () => {
    provider = await startAiProviderServer();
    provider.respondWith(() => ({ content: JSON.stringify(HYPOTHESES) }));
    t = await startApp({ env: { TRUSTED_AI_HOSTS: provider.host, AI_MAX_RETRIES: '0' } });
    root = await rootUser(t.http);
    const instance = await createInstance(t.http, root, {
      slug: `ai-${worker}`,
      name: 'AI',
      database: dbName,
    });
    instanceId = instance.id;
    onInstance = { token: instance.token };
    // Other suites on this database may have left a global configuration behind.
    await t.http.delete(AI).set(bearer(root));
  });
  afterAll(async () => {
    await t.http.delete(AI).set(bearer(root));
    await t.http.delete(`${API}/admin/instances/${instanceId}?force=true`).set(bearer(root));
    await t.close();
    await dropDatabase(dbName);
    await provider.close();
  });

  /** Pushes a new anomaly alert (a new alert is never served from the explanation cache) and explains it. */
  async function explainNewAlert(as: { token: string }) {
    const space = await createSpace(t.http, as);
    const product = await createProduct(t.http, as, space);
    const alert = await t.http
      .post(`${API}/spaces/${space.slug}/alerts`)
      .set(bearer(as))
      .send({ product_id: product.id, alert_type: 'anomaly', severity: 'high', message: 'Rows dropped' });
    expect(alert.status).toBe(201);
    return t.http.post(`${API}/alerts/${alert.body.id}/explain`).set(bearer(as));
  }

  const modelsCalled = () => provider.requests.map((r) => r.body.model);

  it('explains an alert of an instance with the global configuration, and with its override once it has one', async () => {
    expectProblem(await explainNewAlert(onInstance), 503);
    const global = await t.http.post(AI).set(bearer(root)).send({
      provider: 'openai_compatible',
      model_name: 'global-model',
      api_key: 'sk-global-0123456789abcdef',
      api_base_url: provider.openaiBaseUrl,
    });
    expect(global.status).toBe(201);

    // The instance has no configuration of its own: it uses the global one, before and after the default
    // instance has called (nothing resolved on one instance may be kept for another).
    const first = await explainNewAlert(onInstance);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ cached: false, hypotheses: HYPOTHESES.hypotheses });
    expect((await explainNewAlert(root)).status).toBe(200);
    expect((await explainNewAlert(onInstance)).status).toBe(200);
    expect(modelsCalled()).toEqual(['global-model', 'global-model', 'global-model']);
    expect(provider.requests[0].headers.authorization).toBe('Bearer sk-global-0123456789abcdef');

    // An override applies to the instance at once, and only to it.
    const override = await t.http.post(AI).set(bearer(onInstance)).send({
      provider: 'openai_compatible',
      model_name: 'instance-model',
      api_key: 'sk-instance-0123456789abcdef',
      api_base_url: provider.openaiBaseUrl,
    });
    expect(override.status).toBe(201);
    provider.reset();
    provider.respondWith(() => ({ content: JSON.stringify(HYPOTHESES) }));
    expect((await explainNewAlert(onInstance)).status).toBe(200);
    expect((await explainNewAlert(root)).status).toBe(200);
    expect(modelsCalled()).toEqual(['instance-model', 'global-model']);
    expect(provider.requests[0].headers.authorization).toBe('Bearer sk-instance-0123456789abcdef');

    // A disabled override switches AI off on the instance only.
    expect((await t.http.patch(AI).set(bearer(onInstance)).send({ is_enabled: false })).status).toBe(200);
    expectProblem(await explainNewAlert(onInstance), 503);
    expect((await explainNewAlert(root)).status).toBe(200);

    // Without the override the instance falls back to the global configuration again.
    expect((await t.http.delete(AI).set(bearer(onInstance))).status).toBe(204);
    provider.reset();
    provider.respondWith(() => ({ content: JSON.stringify(HYPOTHESES) }));
    expect((await explainNewAlert(onInstance)).status).toBe(200);
    expect(modelsCalled()).toEqual(['global-model']);
  });
});
