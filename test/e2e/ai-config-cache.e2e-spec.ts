import { DataSource } from 'typeorm';
import { AiConfigCache } from '../../src/modules/ai/ai-config.cache';
import { AiBudgetExceeded, AiDisabled } from '../../src/modules/ai/ai.errors';
import { AiGatewayService, AiCallRequest } from '../../src/modules/ai/ai-gateway.service';
import { AiQueries } from '../../src/modules/ai/ai.queries';
import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { Wakeup } from '../../src/platform/jobs/wakeup.service';
import { AiProviderServer, startAiProviderServer } from '../support/ai-provider-server';
import { startApp, TestApp } from '../support/app';
import { bearer, rootUser, TestUser } from '../support/factories';
import { eventually } from '../support/server-process';

const API = '/api/v1.0';
const KEY = 'sk-config-cache-key-0123456789abcdef';

const call = (userId: string): AiCallRequest => ({
  feature: 'alert_explain',
  promptKey: 'alert_explain',
  variables: {
    alert: { id: 'a1' },
    product: { name: 'orders' },
    lineage: [],
    recent_runs: [],
    incidents: [],
  },
  userId,
});

// The gateway's configuration is kept in memory (AiConfigCache, issue 29): a call reads none of it,
// and a change made through the API is seen by the very next call.
describe('AI gateway configuration in memory (PostgreSQL and embedded)', () => {
  let provider: AiProviderServer;
  let t: TestApp;
  let root: TestUser;
  let gateway: AiGatewayService;
  let queries: AiQueries;
  const admin = {
    post: (path: string, body: object = {}) =>
      t.http
        .post(API + path)
        .set(bearer(root))
        .send(body),
    patch: (path: string, body: object) =>
      t.http
        .patch(API + path)
        .set(bearer(root))
        .send(body),
    put: (path: string, body: object) =>
      t.http
        .put(API + path)
        .set(bearer(root))
        .send(body),
    delete: (path: string) => t.http.delete(API + path).set(bearer(root)),
  };
  /** The model the provider was asked for by the latest call. */
  const modelOfNextCall = async () => {
    provider.reset();
    await gateway.complete(call(root.id));
    return provider.requests[0].body.model;
  };

  beforeAll(async () => {
    provider = await startAiProviderServer();
    t = await startApp({ env: { TRUSTED_AI_HOSTS: provider.host, AI_RETRY_MAX_WAIT_MS: '20' } });
    root = await rootUser(t.http);
    gateway = t.app.get(AiGatewayService);
    queries = t.app.get(AiQueries);
    const source = t.app.get(DataSource);
    // Other suites on this database may have left a configuration or overrides behind.
    await admin.delete('/admin/ai-config/');
    await source.query('DELETE FROM ai_budgets');
    await source.query('DELETE FROM ai_model_routes');
    await source.query(`UPDATE ai_prompt_versions SET status = 'inactive' WHERE status = 'active'`);
    const created = await admin.post('/admin/ai-config/', {
      provider: 'openai_compatible',
      model_name: 'model-v1',
      api_key: KEY,
      api_base_url: provider.openaiBaseUrl,
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await admin.delete('/admin/ai-config/');
    await admin.delete('/admin/ai-budgets/alert_explain');
    await t.app.get(DataSource).query('DELETE FROM ai_model_routes');
    await t.close();
    await provider.close();
  });

  it('makes no configuration read on a warm call', async () => {
    expect(await modelOfNextCall()).toBe('model-v1');
    const snapshotReads = jest.spyOn(queries, 'configSnapshot');
    const versionReads = jest.spyOn(queries, 'configVersion');
    const usageReads = jest.spyOn(queries, 'budgetUsage');
    try {
      expect(await modelOfNextCall()).toBe('model-v1');
      expect(await modelOfNextCall()).toBe('model-v1');
      expect(snapshotReads).not.toHaveBeenCalled();
      expect(versionReads).not.toHaveBeenCalled();
      // No budget limit applies: the use is not read either.
      expect(usageReads).not.toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('sees every change made through the API on the next call', async () => {
    expect(await modelOfNextCall()).toBe('model-v1');

    expect((await admin.patch('/admin/ai-config/', { model_name: 'model-v2' })).status).toBe(200);
    expect(await modelOfNextCall()).toBe('model-v2');

    const profile = await admin.post('/admin/ai-model-routing/profiles', {
      name: `cache-profile-${Date.now()}`,
      provider: 'openai_compatible',
      model_name: 'routed-model',
      api_key: 'sk-routed-profile-key-000000000000',
      api_base_url: provider.openaiBaseUrl,
    });
    expect(profile.status).toBe(201);
    const route = await admin.put('/admin/ai-model-routing/routes', {
      feature: 'alert_explain',
      profile_id: profile.body.id,
    });
    expect(route.status).toBe(200);
    provider.reset();
    await gateway.complete(call(root.id));
    expect(provider.requests[0].body.model).toBe('routed-model');
    expect(provider.requests[0].headers.authorization).toBe('Bearer sk-routed-profile-key-000000000000');

    const version = await admin.post('/admin/prompts/alert_explain/versions', {
      template: 'CACHE-MARKER-7 {{alert}} {{product}}',
    });
    expect(version.status).toBe(201);
    provider.reset();
    const prompted = await gateway.complete(call(root.id));
    expect(provider.requests[0].text).toContain('CACHE-MARKER-7');
    expect((await admin.post('/admin/prompts/alert_explain/reset')).status).toBe(200);
    provider.reset();
    await gateway.complete(call(root.id));
    expect(provider.requests[0].text).not.toContain('CACHE-MARKER-7');
    expect(prompted.logId).toEqual(expect.any(String));

    expect((await admin.put('/admin/ai-budgets/alert_explain', { daily_tokens: 1 })).status).toBe(200);
    provider.reset();
    await expect(gateway.complete(call(root.id))).rejects.toBeInstanceOf(AiBudgetExceeded);
    expect(provider.requests).toHaveLength(0);
    expect((await admin.delete('/admin/ai-budgets/alert_explain')).status).toBe(204);
    expect(await modelOfNextCall()).toBe('routed-model');

    expect((await admin.patch('/admin/ai-config/', { is_enabled: false })).status).toBe(200);
    await expect(gateway.complete(call(root.id))).rejects.toBeInstanceOf(AiDisabled);
    expect((await admin.patch('/admin/ai-config/', { is_enabled: true })).status).toBe(200);
    expect(await modelOfNextCall()).toBe('routed-model');
  });

  it('keeps serving its snapshot after a write no one signalled, and follows the signal carrying its version', async () => {
    await t.app.get(DataSource).query('DELETE FROM ai_model_routes');
    // Straight in the database, as another process would write, but without its signal.
    expect(await modelOfNextCall()).toBe('routed-model');
    const [{ version }] = (await t.app.get(DataSource).query('SELECT version FROM ai_config_version')) as {
      version: string;
    }[];
    // The signal a writer sends after commit (a NOTIFY on PostgreSQL).
    t.app.get(Wakeup).signal(null, `ai-config:${DEFAULT_INSTANCE_ID}:${version}`);
    await eventually(
      'the signalled version to be served',
      async () => (await modelOfNextCall()) === 'model-v2',
    );
  });

  it('reads a version heard of but never reached only twice, then serves what it read', async () => {
    const snapshotReads = jest.spyOn(queries, 'configSnapshot');
    try {
      t.app.get(AiConfigCache).observe(DEFAULT_INSTANCE_ID, Number.MAX_SAFE_INTEGER);
      expect(await modelOfNextCall()).toBe('model-v2');
      expect(await modelOfNextCall()).toBe('model-v2');
      expect(snapshotReads).toHaveBeenCalledTimes(2);
    } finally {
      jest.restoreAllMocks();
    }
  });
});
