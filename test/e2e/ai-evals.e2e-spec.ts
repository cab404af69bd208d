import { EVAL_CASES } from '../../src/modules/ai-evals/cases';
import {
  AiProviderServer,
  ProviderRequest,
  ScriptedAnswer,
  startAiProviderServer,
} from '../support/ai-provider-server';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { eventually } from '../support/server-process';

const API = '/api/v1.0/admin/ai-evals';

/**
 * A well-behaved model: hypotheses whose evidence quotes the alert's message
 * (as the model saw it, redacted), except for the null-rate case, where it
 * answers a confidence out of range: that case must fail.
 */
function model(request: ProviderRequest): ScriptedAnswer {
  if (!/json/i.test(request.text)) return { content: 'OK' };
  const message = /"message":"((?:[^"\\]|\\.)*)"/.exec(request.text)?.[1] ?? '';
  const confidence = request.text.includes('shop_id') ? 1.7 : 0.6;
  return {
    content: JSON.stringify({
      hypotheses: [{ cause: 'A partial upstream load', confidence, evidence: [message] }],
    }),
  };
}

describe('AI evals (through the AI gateway, against a real local provider)', () => {
  let provider: AiProviderServer;
  let t: TestApp;
  let root: TestUser;
  let user: TestUser;

  beforeAll(async () => {
    provider = await startAiProviderServer();
    t = await startApp({
      env: {
        AI_PROVIDER: 'openai_compatible',
        AI_MODEL: 'gpt-4o-mini',
        AI_API_KEY: 'sk-test-evals-0123456789abcdef',
        AI_API_BASE_URL: provider.openaiBaseUrl,
        TRUSTED_AI_HOSTS: provider.host,
        AI_MAX_RETRIES: '0',
      },
    });
    [root, user] = await Promise.all([rootUser(t.http), createUser(t.http, { first_name: 'Eve' })]);
  });

  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  const run = (id: string) => t.http.get(`${API}/${id}`).set(bearer(root));

  it('refuses non-superadmins on every route', async () => {
    expectProblem(await t.http.post(`${API}/run`).set(bearer(user)).send({}), 403);
    expectProblem(await t.http.get(API).set(bearer(user)), 403);
    expectProblem(await t.http.get(`${API}/latest`).set(bearer(user)), 403);
    expectProblem(await t.http.get(`${API}/00000000-0000-4000-8000-000000000000`).set(bearer(user)), 403);
  });

  it('answers 404 for the latest run before any, and for an unknown run', async () => {
    expectProblem(await t.http.get(`${API}/latest`).set(bearer(root)), 404);
    expectProblem(await run('00000000-0000-4000-8000-000000000000'), 404);
  });

  it('runs the suite in the background with visible progress, recording each case', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    provider.respondWith(async (request) => {
      calls += 1;
      // The third provider call waits, so the run is seen half-way.
      if (calls === 3) await gate;
      return model(request);
    });

    const started = await t.http.post(`${API}/run`).set(bearer(root)).send({});
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'queued',
      total: EVAL_CASES.length,
      done: 0,
      passed: 0,
      failed: 0,
      started_by: root.id,
    });
    const id = started.body.id as string;

    const midway = await eventually('the run to stop at the held call', async () => {
      const res = await run(id);
      return res.body.status === 'running' && res.body.done === 2 ? res.body : undefined;
    });
    expect(midway.results).toHaveLength(2);
    expect((await t.http.get(`${API}/latest`).set(bearer(root))).body).toMatchObject({
      id,
      status: 'running',
      done: 2,
    });
    release();

    const done = await eventually('the run to complete', async () => {
      const res = await run(id);
      return res.body.status === 'completed' ? res.body : undefined;
    });
    expect(done).toMatchObject({
      total: EVAL_CASES.length,
      done: EVAL_CASES.length,
      passed: EVAL_CASES.length - 1,
      failed: 1,
    });
    expect(done.finished_at).toEqual(expect.any(String));
    expect(done.results.map((r: { case_id: string }) => r.case_id)).toEqual(EVAL_CASES.map((c) => c.id));
    const failing = done.results.filter((r: { passed: boolean }) => !r.passed);
    expect(failing).toEqual([
      expect.objectContaining({
        case_id: 'alert_explain.null_rate_trend',
        feature: 'alert_explain',
        failures: [expect.stringMatching(/confidence/)],
      }),
    ]);
    for (const result of done.results) {
      expect(result.latency_ms).toEqual(expect.any(Number));
    }
    // The blocked injection never reached the provider, yet passed; the others were sent and logged.
    const blocked = done.results.find(
      (r: { case_id: string }) => r.case_id === 'alert_explain.injection_blocked',
    );
    expect(blocked).toMatchObject({ passed: true, log_id: expect.any(String) });
    expect(calls).toBe(EVAL_CASES.length - 1);
    const logs = await dbQuery<{ id: string; status: string; run_id: string }>(
      'SELECT id, status, run_id FROM ai_logs WHERE id = ANY($1::uuid[])',
      [done.results.map((r: { log_id: string }) => r.log_id)],
    );
    expect(logs).toHaveLength(EVAL_CASES.length);
    expect(new Set(logs.map((l) => l.run_id))).toEqual(new Set([done.workflow_run_id]));
    expect(logs.find((l) => l.id === blocked.log_id)?.status).toBe('blocked');

    const list = await t.http.get(API).set(bearer(root));
    expect(list.body.items[0]).toMatchObject({ id, status: 'completed' });
    expect(list.body.items[0].results).toBeUndefined();
  });

  it('runs only the features asked for, and names an unknown one with 422', async () => {
    provider.respondWith(model);
    const started = await t.http
      .post(`${API}/run`)
      .set(bearer(root))
      .send({ features: ['test_connection'] });
    expect(started.body).toMatchObject({ features: ['test_connection'], total: 1 });
    const done = await eventually('the run to complete', async () => {
      const res = await run(started.body.id);
      return res.body.status === 'completed' ? res.body : undefined;
    });
    expect(done).toMatchObject({ passed: 1, failed: 0, pass_rate: 1 });
    const bad = await t.http
      .post(`${API}/run`)
      .set(bearer(root))
      .send({ features: ['nope'], extra: 1 });
    expectProblem(bad, 422);
    expect(invalidFields(bad)).toEqual(['extra']);
    expectProblem(
      await t.http
        .post(`${API}/run`)
        .set(bearer(root))
        .send({ features: ['nope'] }),
      422,
      /nope/,
    );
  });
});
