import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { AiProviderServer, startAiProviderServer } from '../support/ai-provider-server';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { eventually } from '../support/server-process';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const KEY = 'sk-admin-suite-key-abcdefghijklmnop';
const NIL = '00000000-0000-4000-8000-000000000000';

/** Every AI administration route, for the 401/403 walk. */
const ADMIN_ROUTES: Array<[method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string]> = [
  ['get', '/admin/ai-config/'],
  ['post', '/admin/ai-config/'],
  ['patch', '/admin/ai-config/'],
  ['delete', '/admin/ai-config/'],
  ['post', '/admin/ai-config/test-connection'],
  ['get', '/admin/ai-model-routing/profiles'],
  ['post', '/admin/ai-model-routing/profiles'],
  ['get', '/admin/ai-model-routing/routes'],
  ['put', '/admin/ai-model-routing/routes'],
  ['get', '/admin/prompts'],
  ['get', '/admin/prompts/alert_explain'],
  ['post', '/admin/prompts/alert_explain/versions'],
  ['post', '/admin/prompts/alert_explain/preview'],
  ['post', '/admin/prompts/alert_explain/reset'],
  ['get', '/admin/ai-budgets'],
  ['put', '/admin/ai-budgets/global'],
  ['delete', '/admin/ai-budgets/global'],
  ['get', '/admin/ai-ops/overview'],
  ['get', '/admin/ai-workflow-runs'],
  ['get', `/admin/ai-workflow-runs/${NIL}`],
  ['get', '/admin/ai-logs'],
  ['get', '/admin/ai-logs/usage'],
  ['get', '/admin/ai-logs/usage/people'],
  ['get', '/admin/ai-logs/usage/guardrail-impact'],
  ['get', `/admin/ai-logs/${NIL}`],
  ['post', `/admin/ai-logs/${NIL}/replay`],
  ['post', `/admin/ai-logs/${NIL}/save-prompt`],
  ['get', '/ai-logs'],
  ['get', '/ai-logs/usage'],
];

describe('AI administration over HTTP (real PostgreSQL, local provider server)', () => {
  let provider: AiProviderServer;
  let t: TestApp;
  let root: TestUser;
  let member: TestUser;
  const as = (user: TestUser) => ({
    get: (path: string) => t.http.get(API + path).set(bearer(user)),
    post: (path: string, body: object = {}) =>
      t.http
        .post(API + path)
        .set(bearer(user))
        .send(body),
    patch: (path: string, body: object = {}) =>
      t.http
        .patch(API + path)
        .set(bearer(user))
        .send(body),
    put: (path: string, body: object = {}) =>
      t.http
        .put(API + path)
        .set(bearer(user))
        .send(body),
    delete: (path: string) => t.http.delete(API + path).set(bearer(user)),
  });
  const admin = () => as(root);
  const configure = async (fields: Record<string, unknown> = {}) => {
    await admin().delete('/admin/ai-config/');
    const res = await admin().post('/admin/ai-config/', {
      provider: 'openai_compatible',
      model_name: 'gpt-4o-mini',
      api_key: KEY,
      api_base_url: provider.openaiBaseUrl,
      ...fields,
    });
    expect(res.status).toBe(201);
    return res;
  };

  beforeAll(async () => {
    provider = await startAiProviderServer();
    t = await startApp({
      env: { TRUSTED_AI_HOSTS: provider.host, AI_REQUEST_TIMEOUT_MS: '500', AI_RETRY_MAX_WAIT_MS: '20' },
    });
    root = await rootUser(t.http);
    member = await createUser(t.http);
    // Other suites on this database may have left a configuration or overrides behind.
    await admin().delete('/admin/ai-config/');
    await dbQuery('DELETE FROM ai_budgets');
    await dbQuery('DELETE FROM ai_model_routes');
  });

  afterAll(async () => {
    await admin().delete('/admin/ai-config/');
    await dbQuery('DELETE FROM ai_budgets');
    await dbQuery('DELETE FROM ai_model_routes');
    await t.close();
    await provider.close();
  });

  beforeEach(() => provider.reset());

  it('refuses every route to anonymous callers (401) and to non-superadmins (403)', async () => {
    for (const [method, path] of ADMIN_ROUTES) {
      const anonymous = await t.http[method](API + path).send({});
      expectProblem(anonymous, 401);
      const forbidden = await t.http[method](API + path)
        .set(bearer(member))
        .send({});
      expectProblem(forbidden, 403);
    }
  });

  describe('provider configuration', () => {
    it('creates once (409 on a second POST), keeps the key write-only, updates and deletes', async () => {
      await admin().delete('/admin/ai-config/');
      // Nothing stored and no AI_PROVIDER: the effective (empty, disabled) configuration, never a 404.
      const unconfigured = {
        id: null,
        source: 'environment',
        provider: null,
        model_name: null,
        api_key_set: false,
        api_base_url: null,
        temperature: null,
        max_tokens: null,
        is_enabled: false,
        created_at: null,
        updated_at: null,
      };
      const empty = await admin().get('/admin/ai-config/');
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(unconfigured);
      const created = await configure({ temperature: 0.2, max_tokens: 256 });
      expect(created.body).toEqual(
        expect.objectContaining({
          source: 'database',
          provider: 'openai_compatible',
          model_name: 'gpt-4o-mini',
          api_key_set: true,
          api_base_url: provider.openaiBaseUrl,
          temperature: 0.2,
          max_tokens: 256,
          is_enabled: true,
        }),
      );
      expect(JSON.stringify(created.body)).not.toContain(KEY);
      expect(created.body).not.toHaveProperty('api_key');
      const [stored] = await dbQuery<{ api_key_sealed: string }>('SELECT api_key_sealed FROM ai_configs');
      expect(stored.api_key_sealed).not.toContain(KEY);

      const again = await admin().post('/admin/ai-config/', { provider: 'openai', model_name: 'gpt-4o' });
      expectProblem(again, 409);

      const patched = await admin().patch('/admin/ai-config/', { model_name: 'gpt-4.1-mini', api_key: null });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual(
        expect.objectContaining({ model_name: 'gpt-4.1-mini', api_key_set: false }),
      );
      const read = await admin().get('/admin/ai-config/');
      expect(read.body.model_name).toBe('gpt-4.1-mini');

      expect((await admin().delete('/admin/ai-config/')).status).toBe(204);
      expect((await admin().get('/admin/ai-config/')).body).toEqual(unconfigured);
      expectProblem(await admin().delete('/admin/ai-config/'), 404);
      expectProblem(await admin().patch('/admin/ai-config/', { model_name: 'm' }), 404);
      const audit = await dbQuery<{ action: string; details: unknown }>(
        `SELECT action, details FROM audit_log WHERE resource_id = $1 ORDER BY created_at`,
        [created.body.id],
      );
      expect(audit.map((a) => a.action)).toEqual([
        'ai_config.created',
        'ai_config.updated',
        'ai_config.deleted',
      ]);
      expect(JSON.stringify(audit)).not.toContain(KEY);
    });

    it('refuses base URLs that are not public HTTPS unless their host is trusted (422), and unknown fields', async () => {
      await admin().delete('/admin/ai-config/');
      for (const url of [
        'http://api.example.com/v1',
        'https://10.1.2.3/v1',
        'https://localhost/v1',
        'ftp://x.example.com',
      ]) {
        const res = await admin().post('/admin/ai-config/', {
          provider: 'openai',
          model_name: 'm',
          api_base_url: url,
        });
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual(['api_base_url']);
      }
      const noBase = await admin().post('/admin/ai-config/', { provider: 'azure_openai', model_name: 'd' });
      expectProblem(noBase, 422);
      const unknown = await admin().post('/admin/ai-config/', {
        provider: 'openai',
        model_name: 'm',
        colour: 'red',
      });
      expectProblem(unknown, 422);
      const badProvider = await admin().post('/admin/ai-config/', { provider: 'skynet', model_name: 'm' });
      expectProblem(badProvider, 422);
    });

    it('tests the connection through the gateway: the key goes in the right header; failures answer 200 with success false', async () => {
      await configure();
      const ok = await admin().post('/admin/ai-config/test-connection');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({
        success: true,
        error: null,
        latency_ms: expect.any(Number),
        model: 'gpt-4o-mini',
      });
      expect(provider.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
      expect(provider.requests[0].path).toBe('/v1/chat/completions');

      provider.respondWith(() => ({ status: 500, error: 'model overloaded' }));
      const failed = await admin().post('/admin/ai-config/test-connection');
      expect(failed.status).toBe(200);
      expect(failed.body.success).toBe(false);
      expect(failed.body.error).toMatch(/500/);

      await admin().delete('/admin/ai-config/');
      const none = await admin().post('/admin/ai-config/test-connection');
      expect(none.body).toEqual(expect.objectContaining({ success: false, model: null }));
    });

    it('speaks the Anthropic and Azure wire formats', async () => {
      await configure({
        provider: 'anthropic',
        model_name: 'claude-3-5-haiku-20241022',
        api_base_url: provider.url,
      });
      const anthropic = await admin().post('/admin/ai-config/test-connection');
      expect(anthropic.body.success).toBe(true);
      const sent = provider.requests[0];
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe(KEY);
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.body.system).toContain('health check');

      provider.reset();
      await configure({ provider: 'azure_openai', model_name: 'my-deployment', api_base_url: provider.url });
      const azure = await admin().post('/admin/ai-config/test-connection');
      expect(azure.body.success).toBe(true);
      expect(provider.requests[0].deployment).toBe('my-deployment');
      expect(provider.requests[0].path).toMatch(/api-version=\d{4}-\d{2}-\d{2}/);
      expect(provider.requests[0].headers['api-key']).toBe(KEY);
    });
  });

  describe('prompts', () => {
    it('lists code defaults, previews (422 naming a missing variable), versions and resets', async () => {
      const list = await admin().get('/admin/prompts');
      expect(list.status).toBe(200);
      expect(list.body.items).toEqual(
        expect.arrayContaining([expect.objectContaining({ prompt_key: 'alert_explain', active_version: 0 })]),
      );
      expect(list.body.total).toBe(list.body.items.length);
      const keys = list.body.items.map((p: { prompt_key: string }) => p.prompt_key);
      expect(keys).toEqual([...keys].sort());
      const second = await admin().get('/admin/prompts?skip=1&limit=1');
      expect(second.body).toEqual({
        items: [expect.objectContaining({ prompt_key: keys[1] })],
        total: list.body.total,
      });
      expectProblem(await admin().get('/admin/prompts?skip=-1'), 422);
      expectProblem(await admin().get('/admin/prompts/no_such_prompt'), 404);

      const missing = await admin().post('/admin/prompts/alert_explain/preview', {
        variables: { alert: 'x', lineage: [], recent_runs: [], incidents: [] },
      });
      expectProblem(missing, 422, /product/);
      expect(invalidFields(missing)).toEqual(['variables.product']);

      const preview = await admin().post('/admin/prompts/alert_explain/preview', {
        variables: {
          alert: 'Contact ops@example.com',
          product: 'orders',
          lineage: [],
          recent_runs: [],
          incidents: [],
        },
      });
      expect(preview.status).toBe(200);
      expect(preview.body.messages[1].content).toContain('ops@example.com');
      expect(preview.body.redacted_messages[1].content).toContain('[REDACTED_EMAIL]');
      expect(preview.body.guardrail_actions).toEqual([{ kind: 'redact_email', count: 1 }]);

      const unknownVariable = await admin().post('/admin/prompts/alert_explain/versions', {
        template: 'Hi {{nobody}}',
      });
      expectProblem(unknownVariable, 422, /nobody/);

      const created = await admin().post('/admin/prompts/alert_explain/versions', {
        template: 'Explain {{alert}} for {{product}}.',
        note: 'shorter',
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual(
        expect.objectContaining({
          prompt_key: 'alert_explain',
          version: expect.any(Number),
          status: 'active',
          variables: ['alert', 'product'],
          note: 'shorter',
          created_by: root.id,
        }),
      );
      expect((await admin().get('/admin/prompts/alert_explain')).body.active_version).toBe(
        created.body.version,
      );
      const shorter = await admin().post('/admin/prompts/alert_explain/preview', {
        variables: { alert: 'a', product: 'p' },
      });
      expect(shorter.status).toBe(200);
      expect(shorter.body.messages[1].content).toBe('Explain a for p.');

      const reset = await admin().post('/admin/prompts/alert_explain/reset');
      expect(reset.status).toBe(200);
      expect(reset.body.active_version).toBe(0);
      expect(reset.body.versions.at(-1)).toEqual(expect.objectContaining({ version: 0, status: 'active' }));
    });
  });

  describe('gateway through HTTP', () => {
    let seedLogId: string;

    beforeAll(async () => {
      await configure();
      provider.reset();
      await admin().post('/admin/ai-config/test-connection');
      const logs = await admin().get('/admin/ai-logs?feature=test_connection&status=success&limit=1');
      seedLogId = logs.body.items[0].id;
    });

    afterEach(async () => {
      await dbQuery('DELETE FROM ai_budgets');
      await dbQuery('DELETE FROM ai_model_routes');
    });

    it('lists logs in the decided record shape, with filters, and shows the redacted messages', async () => {
      const res = await admin().get(
        '/admin/ai-logs?feature=test_connection&provider=openai_compatible&limit=5',
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBeGreaterThanOrEqual(1);
      expect(res.body.items[0]).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          feature: 'test_connection',
          provider: 'openai_compatible',
          model: 'gpt-4o-mini',
          prompt_key: 'connection_test',
          prompt_version: 0,
          status: expect.any(String),
          input_tokens: expect.any(Number),
          output_tokens: expect.any(Number),
          cost_usd: expect.any(Number),
          latency_ms: expect.any(Number),
          user_id: root.id,
          space_id: null,
          guardrail_actions: [],
          created_at: expect.stringMatching(/Z$/),
        }),
      );
      const spec = await admin().get('/ai-logs?status=success&limit=1');
      expect(spec.status).toBe(200);
      expect(spec.body.items).toHaveLength(1);
      expectProblem(await admin().get('/admin/ai-logs?status=weird'), 422);
      expectProblem(await admin().get('/admin/ai-logs?limit=500'), 422);
      const detail = await admin().get(`/admin/ai-logs/${seedLogId}`);
      expect(detail.body.messages).toEqual([
        { role: 'system', content: expect.any(String) },
        { role: 'user', content: expect.any(String) },
      ]);
      expectProblem(await admin().get(`/admin/ai-logs/${NIL}`), 404);
      expectProblem(await admin().get('/admin/ai-logs/not-a-uuid'), 422);
    });

    it('replays a log through the governed path: a new log linked to the original', async () => {
      const res = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          replay_of: seedLogId,
          text: 'OK',
          provider: 'openai_compatible',
          model: 'gpt-4o-mini',
        }),
      );
      expect(provider.requests).toHaveLength(1);
      const replayed = await admin().get(`/admin/ai-logs/${res.body.log_id}`);
      expect(replayed.body).toEqual(
        expect.objectContaining({ replay_of: seedLogId, status: 'success', user_id: root.id }),
      );
      expectProblem(await admin().post(`/admin/ai-logs/${NIL}/replay`), 404);
    });

    it('lists each log as its own record answers it (the list is encoded by the database)', async () => {
      const replay = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expect(replay.status).toBe(200);
      // Values whose encoding could differ: fractional cost, microseconds, actions, an error, the replay link.
      await dbQuery(
        `UPDATE ai_logs SET cost_usd = 0.000123, created_at = created_at + interval '0.000999 seconds',
                error = 'upstream said "no"', guardrail_actions = '[{"kind":"redact_email","count":2},{"kind":"injection_flagged","count":1,"variable":"alert"}]'
          WHERE id = $1`,
        [replay.body.log_id],
      );
      const list = await admin().get('/admin/ai-logs?feature=test_connection&limit=100');
      expect(list.status).toBe(200);
      expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
      const items = list.body.items as { id: string }[];
      expect(items.map((item) => item.id)).toEqual(expect.arrayContaining([seedLogId, replay.body.log_id]));
      for (const item of items) {
        const detail = await admin().get(`/admin/ai-logs/${item.id}`);
        const {
          messages: _messages,
          response: _response,
          ...record
        } = detail.body as Record<string, unknown>;
        expect(item).toStrictEqual(record);
      }
      const changed = items.find((item) => item.id === replay.body.log_id);
      expect(changed).toEqual(
        expect.objectContaining({ replay_of: seedLogId, cost_usd: 0.000123, error: 'upstream said "no"' }),
      );
    });

    it('refuses over budget without sending anything (429), logs it, and lists the override', async () => {
      const put = await admin().put('/admin/ai-budgets/test_connection', { daily_tokens: 1 });
      expect(put.status).toBe(200);
      expect(put.body).toEqual(
        expect.objectContaining({ entry_point_id: 'test_connection', daily_tokens: 1, source: 'database' }),
      );
      const refused = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expectProblem(refused, 429, /budget/);
      expect(refused.body.code).toBe('budget_exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const test = await admin().post('/admin/ai-config/test-connection');
      expect(test.body).toEqual(
        expect.objectContaining({ success: false, error: expect.stringMatching(/budget/) }),
      );
      expect(provider.requests).toHaveLength(0);
      const logged = await admin().get(`/admin/ai-logs/${refused.body.log_id}`);
      expect(logged.body.status).toBe('budget_exceeded');

      const list = await admin().get('/admin/ai-budgets');
      expect(list.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ entry_point_id: 'test_connection', usage: expect.any(Object) }),
        ]),
      );
      expectProblem(await admin().put('/admin/ai-budgets/Not-A-Feature', {}), 422);
      expectProblem(await admin().put('/admin/ai-budgets/global', { daily_tokens: -1 }), 422);
      expect((await admin().delete('/admin/ai-budgets/test_connection')).status).toBe(204);
      expectProblem(await admin().delete('/admin/ai-budgets/test_connection'), 404);
      expect((await admin().post(`/admin/ai-logs/${seedLogId}/replay`)).status).toBe(200);
    });

    it('retries a 429, maps a persistent 500 to 502 and a silent provider to 504 (never 500)', async () => {
      provider.enqueue({ status: 429, headers: { 'retry-after': '0' } });
      const retried = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expect(retried.status).toBe(200);
      expect(provider.requests).toHaveLength(2);

      provider.respondWith(() => ({ status: 500, error: 'boom' }));
      const failed = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expectProblem(failed, 502, /500/);
      expect(failed.body.code).toBe('ai_provider_error');
      const failedLog = await admin().get(`/admin/ai-logs/${failed.body.log_id}`);
      expect(failedLog.body.status).toBe('error');

      provider.respondWith(() => ({ delayMs: 3000 }));
      const slow = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expectProblem(slow, 504);
      expect(slow.body.code).toBe('ai_provider_timeout');
    });

    it('falls back once to the fallback profile and logs both attempts in one run', async () => {
      const fallback = await admin().post('/admin/ai-model-routing/profiles', {
        name: `fallback-${Date.now()}`,
        provider: 'anthropic',
        model_name: 'claude-3-5-haiku',
        api_key: 'sk-ant-fallback-key-000000000000',
        api_base_url: provider.url,
      });
      expect(fallback.status).toBe(201);
      expect(fallback.body).toEqual(expect.objectContaining({ api_key_set: true }));
      expect(JSON.stringify(fallback.body)).not.toContain('sk-ant-fallback');
      const primary = await admin().post('/admin/ai-model-routing/profiles', {
        name: `primary-${Date.now()}`,
        provider: 'openai_compatible',
        model_name: 'primary-model',
        fallback_profile_id: fallback.body.id,
      });
      expect(primary.status).toBe(201);
      const route = await admin().put('/admin/ai-model-routing/routes', {
        feature: 'test_connection',
        profile_id: primary.body.id,
      });
      expect(route.status).toBe(200);
      const routes = await admin().get('/admin/ai-model-routing/routes');
      expect(routes.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ feature: 'test_connection', profile_id: primary.body.id }),
        ]),
      );
      expect(routes.body.total).toBe(routes.body.items.length);
      const profiles = await admin().get('/admin/ai-model-routing/profiles');
      expect(profiles.body.total).toBeGreaterThanOrEqual(2);
      const names = profiles.body.items.map((p: { name: string }) => p.name);
      expect(names).toEqual([...names].sort());
      expect((await admin().get('/admin/ai-model-routing/profiles?skip=1&limit=1')).body).toEqual({
        items: [expect.objectContaining({ name: names[1] })],
        total: profiles.body.total,
      });
      expect((await admin().get('/admin/ai-model-routing/routes?limit=1')).body).toEqual({
        items: [routes.body.items[0]],
        total: routes.body.total,
      });
      expectProblem(await admin().get('/admin/ai-model-routing/profiles?limit=0'), 422);
      expectProblem(
        await admin().put('/admin/ai-model-routing/routes', { feature: 'test_connection', profile_id: NIL }),
        422,
      );

      provider.respondWith((req) =>
        req.body.model === 'primary-model' ? { status: 503 } : { content: 'from fallback' },
      );
      const res = await admin().post(`/admin/ai-logs/${seedLogId}/replay`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ text: 'from fallback', provider: 'anthropic', model: 'claude-3-5-haiku' }),
      );
      // The primary was retried (AI_MAX_RETRIES = 2) before the fallback's one request.
      expect(provider.requests.map((r) => r.format)).toEqual(['openai', 'openai', 'openai', 'anthropic']);
      // The primary profile has no key of its own: it uses the configuration's, same provider.
      expect(provider.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
      expect(provider.requests[3].headers['x-api-key']).toBe('sk-ant-fallback-key-000000000000');

      // The log write's own span is stored after the call returns.
      const run = await eventually('both log spans', async () => {
        const detail = await admin().get(`/admin/ai-workflow-runs/${res.body.run_id}`);
        const spans = detail.body.calls?.flatMap((c: { spans: unknown[] }) => c.spans) ?? [];
        return detail.status === 200 && spans.length === 7 && detail;
      });
      expect(run.body.status).toBe('succeeded');
      expect(
        run.body.calls.map((c: { attempt: number; status: string; replay_of: string }) => [
          c.attempt,
          c.status,
          c.replay_of,
        ]),
      ).toEqual([
        [1, 'error', seedLogId],
        [2, 'success', seedLogId],
      ]);
      expect(run.body.calls[0].spans.map((s: { name: string }) => s.name)).toEqual([
        'route',
        'budget',
        'guardrails',
        'provider',
        'log',
      ]);
      expect(run.body.calls[1].spans.map((s: { name: string }) => s.name)).toEqual(['provider', 'log']);
      const runs = await admin().get('/admin/ai-workflow-runs?feature=test_connection&limit=5');
      expect(runs.body.items[0]).toEqual(
        expect.objectContaining({ feature: 'test_connection', call_count: expect.any(Number) }),
      );
      expectProblem(await admin().get(`/admin/ai-workflow-runs/${NIL}`), 404);
    });

    it('saves a draft prompt version from a log', async () => {
      const res = await admin().post(`/admin/ai-logs/${seedLogId}/save-prompt`);
      expect(res.status).toBe(200);
      expect(res.body.prompt_key).toBe('connection_test');
      expect(res.body.active_version).toBe(0);
      expect(res.body.versions[0]).toEqual(
        expect.objectContaining({ status: 'draft', source_log_id: seedLogId }),
      );
    });

    it('reports usage from the rollups, by person and guardrail impact, and an overview', async () => {
      await dbQuery(
        `INSERT INTO ai_usage_daily (day, feature, provider, model, calls, input_tokens, output_tokens, cost_usd)
         VALUES ((now() AT TIME ZONE 'UTC')::date - 3, 'usage_probe', 'openai', 'gpt-4o', 7, 700, 70, 0.0025)
         ON CONFLICT DO NOTHING`,
      );
      const usage = await admin().get('/admin/ai-logs/usage?days=30');
      expect(usage.status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      expect(usage.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            date: today,
            feature: 'test_connection',
            model: 'gpt-4o-mini',
            calls: expect.any(Number),
          }),
        ]),
      );
      expect(usage.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(usage.body)).toEqual(['days', 'since', 'items', 'totals']);
      const dates = usage.body.items.map((r: { date: string }) => r.date);
      expect(dates).toEqual([...dates].sort().reverse());
      type Totals = Record<'calls' | 'failures' | 'input_tokens' | 'output_tokens' | 'total_tokens', number>;
      const sum = (field: keyof Totals) =>
        usage.body.items.reduce((total: number, r: Totals) => total + r[field], 0);
      expect(usage.body.totals).toMatchObject({
        calls: sum('calls'),
        failures: sum('failures'),
        input_tokens: sum('input_tokens'),
        output_tokens: sum('output_tokens'),
        total_tokens: sum('total_tokens'),
      });
      expect(usage.body.totals.total_tokens).toBeGreaterThan(0);
      const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
      expect(usage.body.items).toContainEqual(
        expect.objectContaining({
          date: threeDaysAgo,
          feature: 'usage_probe',
          calls: 7,
          total_tokens: 770,
          cost_usd: 0.0025,
        }),
      );
      const todayOnly = await admin().get('/admin/ai-logs/usage?days=1');
      expect(todayOnly.body.items.length).toBeGreaterThan(0);
      expect(todayOnly.body.items.every((r: { date: string }) => r.date === today)).toBe(true);
      const week = await admin().get('/ai-logs/usage?days=7');
      expect(week.status).toBe(200);
      expect(week.body.items).toContainEqual(
        expect.objectContaining({ date: threeDaysAgo, feature: 'usage_probe' }),
      );
      // A rollup without its logs breaks the invariant the log list's total relies on (ai-log-totals).
      await dbQuery(`DELETE FROM ai_usage_daily WHERE feature = 'usage_probe'`);
      expectProblem(await admin().get('/admin/ai-logs/usage?days=0'), 422);

      const people = await admin().get('/admin/ai-logs/usage/people?days=30');
      expect(people.body.items).toEqual(
        expect.arrayContaining([expect.objectContaining({ user_id: root.id })]),
      );

      const impact = await admin().get('/admin/ai-logs/usage/guardrail-impact?days=30');
      expect(impact.status).toBe(200);
      expect(impact.body).toEqual(
        expect.objectContaining({ calls: expect.any(Number), guarded_rate: expect.any(Number) }),
      );
      expect(impact.body.guarded_rate).toBeGreaterThanOrEqual(0);
      expect(impact.body.guarded_rate).toBeLessThanOrEqual(1);

      const overview = await admin().get('/admin/ai-ops/overview');
      expect(overview.status).toBe(200);
      expect(overview.body.provider).toEqual(
        expect.objectContaining({
          configured: true,
          source: 'database',
          health: expect.stringMatching(/healthy|degraded|down/),
        }),
      );
      expect(overview.body.last_24h.calls).toBeGreaterThan(0);
      expect(overview.body.last_7d.calls).toBeGreaterThanOrEqual(overview.body.last_24h.calls > 0 ? 1 : 0);
    });

    it('removes logs past the retention period with the retention job', async () => {
      const [old] = await dbQuery<{ id: string }>(
        `INSERT INTO ai_logs (feature, provider, model, status, created_at) VALUES ('old_feature', 'openai', 'm', 'success', now() - interval '400 days') RETURNING id`,
      );
      const jobs = t.app.get(JobRunner);
      await jobs.enqueue(null, 'ai.retention', {});
      await jobs.drain();
      expect(await dbQuery('SELECT id FROM ai_logs WHERE id = $1', [old.id])).toHaveLength(0);
      expect(await dbQuery('SELECT id FROM ai_logs WHERE id = $1', [seedLogId])).toHaveLength(1);
    });
  });
});
