import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { addMember, createSpace, createUser, rootUser, TestSpace, TestUser } from '../support/factories';
import { MetasearchServer, startMetasearchServer } from '../support/metasearch-server';
import { expectProblem, invalidFields } from '../support/problem';
import { recordingClient } from '../support/recording-client';
import { buildIfNeeded, eventually } from '../support/server-process';

/*
 * The pipeline-authoring web-search facade end to end: the bundled adapter
 * (dist/bin/metasearch-mcp.js) registered as a real provider, discovered,
 * enabled and bound over HTTP, searching a real local metasearch server.
 */
const SECRET = `ms-e2e-${randomUUID()}`;

let t: TestApp;
let metasearch: MetasearchServer;
let root: TestUser;
let editor: TestUser;
let colleague: TestUser;
let outsider: TestUser;
let space: TestSpace;
let provider: { id: string; slug: string };
let bindingId: string;
/** Every response body the suite saw, to prove the secret never left the service. */
const seen: string[] = [];

const as = (user: TestUser) =>
  recordingClient(
    () => t,
    user,
    (res) => seen.push(res.text ?? ''),
  );

const tasksPath = (s: TestSpace = space) => `/spaces/${s.slug}/ai/authoring-tasks`;

async function newTask(
  user: TestUser = editor,
  fields: Record<string, unknown> = {},
  s: TestSpace = space,
): Promise<{ id: string; root_task_id: string }> {
  const res = await as(user).post(tasksPath(s), { title: 'Orders pipeline', ...fields });
  expect(res.status).toBe(201);
  return res.body;
}

const search = (
  taskId: string,
  query: string,
  user: TestUser = editor,
  extra: object = {},
  s: TestSpace = space,
) => as(user).post(`${tasksPath(s)}/${taskId}/web-search`, { query, ...extra });

/** Searches, approves the consent it asks for, and answers the consent id. */
async function consentTo(taskId: string, user: TestUser = editor, s: TestSpace = space): Promise<string> {
  const asked = await search(taskId, 'consent probe query', user, {}, s);
  expect(asked.status).toBe(202);
  const approved = await as(user).post(`/ai/consents/${asked.body.consent.id}/approve`);
  expect(approved.status).toBe(200);
  return asked.body.consent.id;
}

async function registerAdapter(): Promise<{ id: string; slug: string }> {
  const credential = await as(root).post('/admin/credentials', {
    name: 'Metasearch key',
    kind: 'bearer',
    secret: SECRET,
  });
  expect(credential.status).toBe(201);
  const created = await as(root).post('/admin/ai/tool-providers/', {
    slug: `websearch-${randomUUID().slice(0, 8)}`,
    name: 'Metasearch',
    command_argv: ['node', 'dist/bin/metasearch-mcp.js'],
    env: {
      VERITY_WEB_SEARCH_ENDPOINT: metasearch.endpoint,
      VERITY_WEB_SEARCH_TIMEOUT_SECONDS: '5',
    },
    credential_id: credential.body.id,
    secret_env_var: 'VERITY_WEB_SEARCH_API_KEY',
    tool_overrides: { web_search: { scope_types: ['public_web'], capability_id: 'web_search' } },
  });
  expect(created.status).toBe(201);
  expect((await as(root).post(`/admin/ai/tool-providers/${created.body.id}/discover`)).status).toBe(200);
  return created.body;
}

async function bind(s: TestSpace, p: { id: string }): Promise<{ bindingId: string }> {
  const tools = (await as(root).get(`/admin/ai/tool-providers/${p.id}/tools`)).body as Array<
    Record<string, unknown>
  >;
  const tool = tools.find((x) => x.tool_name === 'web_search')!;
  expect(tool).toMatchObject({ capability_compatible: true });
  expect(
    (await as(editor).put(`/spaces/${s.slug}/ai/tool-providers/${p.id}/enablement`, { enabled: true }))
      .status,
  ).toBe(200);
  const bound = await as(editor).put(`/spaces/${s.slug}/ai/tool-capabilities/web_search`, {
    provider_tool_id: tool.id,
  });
  expect(bound.status).toBe(200);
  expect(bound.body).toMatchObject({ healthy: true, readiness_errors: [] });
  return { bindingId: bound.body.binding_id as string };
}

beforeAll(async () => {
  buildIfNeeded();
  metasearch = await startMetasearchServer();
  // The server's own switch reaches the adapter: the metasearch endpoint is on loopback.
  t = await startApp({ env: { TOOL_CALL_TIMEOUT_MS: '10000', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
  [root, editor, colleague, outsider] = await Promise.all([
    rootUser(t.http),
    createUser(t.http, { first_name: 'Editor' }),
    createUser(t.http, { first_name: 'Colleague' }),
    createUser(t.http, { first_name: 'Outsider' }),
  ]);
  space = await createSpace(t.http, editor);
  await addMember(t.http, editor, space, colleague, 'editor');
  provider = await registerAdapter();
  ({ bindingId } = await bind(space, provider));
}, 120_000);

beforeEach(() => metasearch.reset());

afterAll(async () => {
  await t?.close();
  await metasearch?.close();
  expect(seen.filter((body) => body.includes(SECRET))).toEqual([]);
});

describe('consent', () => {
  it('asks for consent on the first search without contacting the provider, and reuses the pending consent', async () => {
    const definitionId = randomUUID();
    const task = await newTask(editor, { definition_id: definitionId });
    const first = await search(task.id, 'data contracts best practices');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      consent: {
        id: expect.any(String),
        status: 'pending',
        scope: {
          user_id: editor.id,
          space_id: space.id,
          definition_id: definitionId,
          root_task_id: task.id,
          binding_id: bindingId,
          provider_id: provider.id,
        },
        task_id: task.id,
        expires_at: expect.any(String),
        decided_at: null,
        created_at: expect.any(String),
      },
    });
    const lifetime = Date.parse(first.body.consent.expires_at) - Date.parse(first.body.consent.created_at);
    expect(Math.abs(lifetime - 24 * 3600_000)).toBeLessThan(60_000);
    const again = await search(task.id, 'another query entirely');
    expect(again.status).toBe(202);
    expect(again.body.consent.id).toBe(first.body.consent.id);
    expect(metasearch.requests).toHaveLength(0);
    expect(await dbQuery(`SELECT 1 FROM web_search_evidence WHERE task_id = $1`, [task.id])).toHaveLength(0);
  });

  it('starts no provider process before consent: the readiness check runs without its health probe', async () => {
    const target = await createSpace(t.http, editor);
    const scratch = mkdtempSync(join(tmpdir(), 'verity-consent-'));
    try {
      const created = await as(root).post('/admin/ai/tool-providers/', {
        slug: `started-${randomUUID().slice(0, 8)}`,
        name: 'Counted starts',
        command_argv: ['node', 'test/support/mcp/tool-server.mjs'],
        env: { MCP_TEST_START_LOG: join(scratch, 'setup.log') },
        tool_overrides: { web_search: { scope_types: ['public_web'], capability_id: 'web_search' } },
      });
      expect(created.status).toBe(201);
      expect((await as(root).post(`/admin/ai/tool-providers/${created.body.id}/discover`)).status).toBe(200);
      await bind(target, created.body);
      // New settings: the warm session and the passed probe no longer count, so any use starts a process.
      const starts = join(scratch, 'starts.log');
      const patched = await as(root).patch(`/admin/ai/tool-providers/${created.body.id}`, {
        env: { MCP_TEST_START_LOG: starts },
      });
      expect(patched.status).toBe(200);

      const task = await newTask(editor, {}, target);
      const asked = await search(task.id, 'data quality frameworks', editor, {}, target);
      expect(asked.status).toBe(202);
      expect(existsSync(starts)).toBe(false);

      expect((await as(editor).post(`/ai/consents/${asked.body.consent.id}/approve`)).status).toBe(200);
      expect((await search(task.id, 'data quality frameworks', editor, {}, target)).status).toBe(200);
      expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("lets only the consent's own user read and decide it; deciding twice is 409", async () => {
    const task = await newTask();
    const consentId = (await search(task.id, 'lakehouse table formats')).body.consent.id;
    for (const other of [colleague, outsider, root]) {
      expectProblem(await as(other).get(`/ai/consents/${consentId}`), 404);
      expectProblem(await as(other).post(`/ai/consents/${consentId}/approve`), 404);
      expectProblem(await as(other).post(`/ai/consents/${consentId}/reject`), 404);
    }
    expect((await as(editor).get(`/ai/consents/${consentId}`)).body.status).toBe('pending');
    const approved = await as(editor).post(`/ai/consents/${consentId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      id: consentId,
      status: 'approved',
      decided_at: expect.any(String),
    });
    const grantLifetime = Date.parse(approved.body.expires_at) - Date.parse(approved.body.decided_at);
    expect(Math.abs(grantLifetime - 24 * 3600_000)).toBeLessThan(1000);
    expectProblem(await as(editor).post(`/ai/consents/${consentId}/approve`), 409, /already approved/);
    expectProblem(await as(editor).post(`/ai/consents/${consentId}/reject`), 409, /already approved/);
    expectProblem(await as(editor).get(`/ai/consents/${randomUUID()}`), 404);
    expectProblem(await as(editor).get(`/ai/consents/not-a-uuid`), 422);
  });

  it('asks again after a rejection', async () => {
    const task = await newTask();
    const asked = (await search(task.id, 'streaming ingestion patterns')).body.consent.id;
    const rejected = await as(editor).post(`/ai/consents/${asked}/reject`);
    expect(rejected.body).toMatchObject({ status: 'rejected' });
    const again = await search(task.id, 'streaming ingestion patterns');
    expect(again.status).toBe(202);
    expect(again.body.consent.id).not.toBe(asked);
    expect(metasearch.requests).toHaveLength(0);
  });

  it('refuses to approve a consent that lapsed undecided (409), and asks anew', async () => {
    const task = await newTask();
    const asked = (await search(task.id, 'schema evolution avro')).body.consent.id;
    await dbQuery(`UPDATE web_search_consents SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      asked,
    ]);
    expect((await as(editor).get(`/ai/consents/${asked}`)).body.status).toBe('expired');
    expectProblem(await as(editor).post(`/ai/consents/${asked}/approve`), 409, /expired/);
    const again = await search(task.id, 'schema evolution avro');
    expect(again.status).toBe(202);
    expect(again.body.consent.id).not.toBe(asked);
  });

  it('scopes a grant to its user and root task: another user or another task is asked separately', async () => {
    const task = await newTask();
    await consentTo(task.id);
    expect((await search(task.id, 'dbt snapshot strategy')).status).toBe(200);
    // Same task, another editor of the space.
    const theirs = await search(task.id, 'dbt snapshot strategy', colleague);
    expect(theirs.status).toBe(202);
    expect(theirs.body.consent.scope.user_id).toBe(colleague.id);
    // Same user, another root task.
    const other = await newTask();
    const otherAsk = await search(other.id, 'dbt snapshot strategy');
    expect(otherAsk.status).toBe(202);
    expect(otherAsk.body.consent.scope.root_task_id).toBe(other.id);
    expect(metasearch.requests).toHaveLength(1);
  });

  it('asks again once the grant is past its 24 hours', async () => {
    const task = await newTask();
    const consentId = await consentTo(task.id);
    expect((await search(task.id, 'airflow sensors')).status).toBe(200);
    await dbQuery(`UPDATE tool_grants SET expires_at = now() - interval '1 second' WHERE consent_id = $1`, [
      consentId,
    ]);
    const again = await search(task.id, 'airflow sensors');
    expect(again.status).toBe(202);
  });
});

describe('searching', () => {
  let task: { id: string };

  beforeAll(async () => {
    task = await newTask();
    await consentTo(task.id);
  });

  it('answers normalised results with rank and domain through the real adapter', async () => {
    const res = await search(task.id, '  Data   Lineage  Standards ', editor, { max_results: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: expect.any(Array),
      evidence_id: expect.any(String),
      reused: false,
      calls_used: 1,
      calls_remaining: 5,
    });
    expect(res.body.results).toHaveLength(5);
    expect(res.body.results[0]).toEqual({
      title: 'Result 1 for Data Lineage Standards',
      url: 'https://site1.example.com/data-lineage-standards/1',
      snippet: 'Snippet 1 about Data Lineage Standards.',
      published_at: '2026-01-15T10:00:00.000Z',
      rank: 1,
      domain: 'site1.example.com',
    });
    expect(res.body.results.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3, 4, 5]);
    // What reached the metasearch endpoint: the sanitised query, JSON forced, the credential as Bearer.
    expect(metasearch.requests).toHaveLength(1);
    expect(metasearch.requests[0].params).toEqual({
      language: ['en'],
      q: ['Data Lineage Standards'],
      format: ['json'],
    });
    expect(metasearch.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('reuses stored evidence for a repeated query (case and whitespace normalised): no call, no quota', async () => {
    const first = await search(task.id, 'Open Lineage spec');
    expect(first.body.reused).toBe(false);
    metasearch.reset();
    const repeat = await search(task.id, 'open   lineage SPEC');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ ...first.body, reused: true });
    expect(metasearch.requests).toHaveLength(0);
  });

  it('drops results carrying secrets and keeps only public HTTPS links', async () => {
    const sensitive = await search(task.id, 'mode:sensitive leaked config');
    expect(sensitive.status).toBe(200);
    expect(sensitive.body.results).toEqual([
      expect.objectContaining({ url: 'https://clean.example.com/', rank: 1 }),
    ]);
    const privateUrls = await search(task.id, 'mode:private-urls intranet');
    expect(privateUrls.body.results.map((r: { domain: string }) => r.domain)).toEqual([
      'public-one.example.org',
      'public-two.example.org',
    ]);
    const [stored] = await dbQuery<{ results: unknown }>(
      `SELECT results FROM web_search_evidence WHERE id = $1`,
      [sensitive.body.evidence_id],
    );
    expect(JSON.stringify(stored.results)).not.toContain('sk-live');
  });

  it('answers 502 for a failing or oversized tool answer and uses no quota', async () => {
    const before = (await as(editor).get(`${tasksPath()}/${task.id}`)).body.calls_used;
    expectProblem(await search(task.id, 'mode:error engines down'), 502);
    expectProblem(await search(task.id, 'mode:oversized huge answer'), 502);
    expectProblem(await search(task.id, 'mode:non-json html answer'), 502);
    expect((await as(editor).get(`${tasksPath()}/${task.id}`)).body.calls_used).toBe(before);
    const logs = await dbQuery<{ status: string; error: string }>(
      `SELECT status, error FROM ai_logs WHERE feature = 'pipeline_authoring_web_search' AND user_id = $1 AND status = 'error'`,
      [editor.id],
    );
    expect(logs.length).toBeGreaterThanOrEqual(3);
  });

  it('allows 6 successful distinct calls per task; the 7th distinct is 409 naming the limit, repeats still work', async () => {
    const fresh = await newTask();
    await consentTo(fresh.id);
    for (let i = 1; i <= 6; i++) {
      const res = await search(fresh.id, `distinct query number ${i}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ calls_used: i, calls_remaining: 6 - i, reused: false });
    }
    metasearch.reset();
    const seventh = await search(fresh.id, 'distinct query number 7');
    expectProblem(seventh, 409, /limit of 6/);
    expect(seventh.headers['retry-after']).toBeUndefined();
    expect(metasearch.requests).toHaveLength(0);
    const repeat = await search(fresh.id, 'Distinct Query Number 3');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ reused: true, calls_used: 6, calls_remaining: 0 });
  });

  it('holds the quota under concurrent distinct searches: exactly 6 succeed', async () => {
    const fresh = await newTask();
    await consentTo(fresh.id);
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => search(fresh.id, `concurrent distinct query ${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, /limit of 6/);
    expect((await as(editor).get(`${tasksPath()}/${fresh.id}`)).body).toMatchObject({
      calls_used: 6,
      calls_remaining: 0,
    });
    expect(metasearch.requests).toHaveLength(6);
  });

  it('frees the quota slot of a reservation whose call never finished (a crash)', async () => {
    const fresh = await newTask();
    await consentTo(fresh.id);
    for (let i = 1; i <= 5; i++) expect((await search(fresh.id, `before the crash ${i}`)).status).toBe(200);
    // A sixth call reserved its slot, then the process died: its pending row is older than any call may take.
    await dbQuery(
      `WITH r AS (INSERT INTO web_search_evidence (task_id, query_key_hash, query, status, max_results, binding_id, provider_id, tool_name, created_at)
         VALUES ($1, 'crashed', 'crashed query', 'pending', 8, $2, $3, 'x.web_search', now() - interval '10 minutes') RETURNING task_id)
       UPDATE authoring_tasks SET web_search_slots = web_search_slots + 1 WHERE id IN (SELECT task_id FROM r)`,
      [fresh.id, bindingId, provider.id],
    );
    const after = await search(fresh.id, 'after the crash');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ calls_used: 6, calls_remaining: 0 });
    expectProblem(await search(fresh.id, 'one too many'), 409, /limit of 6/);
  });

  it('never answers results it could not store: a reservation lost while its call runs (a database crash) is a 500', async () => {
    const fresh = await newTask();
    await consentTo(fresh.id);
    metasearch.reset();
    metasearch.delayMs = 1500;
    const pending = search(fresh.id, 'lost reservation query');
    const [reservation] = await eventually('the call to reach the metasearch server', async () => {
      const rows = await dbQuery<{ id: string }>(
        `SELECT id FROM web_search_evidence WHERE task_id = $1 AND status = 'pending'`,
        [fresh.id],
      );
      return metasearch.requests.length === 1 && rows.length === 1 && rows;
    });
    // What recovery after a crash leaves of a reservation that committed without a WAL flush: nothing.
    await dbQuery(
      `WITH gone AS (DELETE FROM web_search_evidence WHERE id = $1 RETURNING task_id)
       UPDATE authoring_tasks SET web_search_slots = web_search_slots - 1 WHERE id IN (SELECT task_id FROM gone)`,
      [reservation.id],
    );
    const res = await pending;
    expectProblem(res, 500);
    expect(res.body.results).toBeUndefined();
    expect(await dbQuery(`SELECT 1 FROM web_search_evidence WHERE task_id = $1`, [fresh.id])).toHaveLength(0);
    expect((await as(editor).get(`${tasksPath()}/${fresh.id}`)).body.calls_used).toBe(0);
  });

  it('refuses unsafe queries (422) and stores nothing of them', async () => {
    const unsafe = 'contact jane.doe@acme.com about pricing';
    const res = await search(task.id, unsafe);
    expectProblem(res, 422, /email address/);
    expect(invalidFields(res)).toEqual(['query']);
    expect(res.text).not.toContain('jane.doe');
    expectProblem(await search(task.id, 'ab'), 422);
    expectProblem(await search(task.id, 'valid query', editor, { max_results: 9 }), 422);
    const stored = await dbQuery(
      `SELECT 1 FROM web_search_evidence WHERE query LIKE '%jane.doe%'
       UNION ALL SELECT 1 FROM ai_logs WHERE messages::text LIKE '%jane.doe%'`,
    );
    expect(stored).toHaveLength(0);
    expect(metasearch.requests).toHaveLength(0);
  });

  it('refuses delegated tasks (403) without asking for consent', async () => {
    const child = await newTask(editor, { parent_task_id: task.id });
    expectProblem(await search(child.id, 'subagent search'), 403, /delegated/);
    expect(await dbQuery(`SELECT 1 FROM web_search_consents WHERE task_id = $1`, [child.id])).toHaveLength(0);
  });

  it('lists the evidence and replays it without calling the provider', async () => {
    const replayTask = await newTask();
    await consentTo(replayTask.id);
    const a = await search(replayTask.id, 'iceberg compaction');
    const b = await search(replayTask.id, 'delta lake vacuum');
    metasearch.reset();
    const list = await as(editor).get(`${tasksPath()}/${replayTask.id}/evidence`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((e: { id: string; query: string }) => [e.id, e.query])).toEqual([
      [a.body.evidence_id, 'iceberg compaction'],
      [b.body.evidence_id, 'delta lake vacuum'],
    ]);
    expect(list.body.items[0]).toMatchObject({
      tool_name: `${provider.slug}.web_search`,
      binding_id: bindingId,
    });
    expect(Object.keys(list.body.items[0]).sort()).toEqual([
      'binding_id',
      'created_at',
      'id',
      'max_results',
      'provider_id',
      'query',
      'results',
      'run_id',
      'task_id',
      'tool_name',
    ]);
    const byId = await as(editor).post(`${tasksPath()}/${replayTask.id}/replay`, {
      evidence_id: a.body.evidence_id,
    });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ ...a.body, reused: true, calls_used: 2, calls_remaining: 4 });
    const byQuery = await as(editor).post(`${tasksPath()}/${replayTask.id}/replay`, {
      query: 'DELTA lake  vacuum',
    });
    expect(byQuery.body.results).toEqual(b.body.results);
    expect(metasearch.requests).toHaveLength(0);
    expectProblem(await as(editor).post(`${tasksPath()}/${replayTask.id}/replay`, {}), 422);
    expectProblem(
      await as(editor).post(`${tasksPath()}/${replayTask.id}/replay`, {
        evidence_id: a.body.evidence_id,
        query: 'x y z',
      }),
      422,
    );
    expectProblem(
      await as(editor).post(`${tasksPath()}/${replayTask.id}/replay`, { query: 'never searched' }),
      404,
    );
    expectProblem(
      await as(editor).post(`${tasksPath()}/${task.id}/replay`, { evidence_id: a.body.evidence_id }),
      404,
    );
  });

  it('records every live call and reuse in the AI log with its workflow run', async () => {
    const logTask = await newTask();
    await consentTo(logTask.id);
    const live = await search(logTask.id, 'great expectations checkpoints');
    await search(logTask.id, 'Great Expectations checkpoints');
    const rows = await dbQuery<{
      provider: string;
      model: string;
      status: string;
      run_id: string;
      response: string;
      messages: unknown;
      run_status: string;
      run_feature: string;
    }>(
      `SELECT l.provider, l.model, l.status, l.run_id, l.response, l.messages, r.status AS run_status, r.feature AS run_feature
         FROM ai_logs l JOIN ai_workflow_runs r ON r.id = l.run_id
        WHERE l.feature = 'pipeline_authoring_web_search' AND l.user_id = $1 AND l.response LIKE $2
        ORDER BY l.created_at`,
      [editor.id, `%${live.body.evidence_id}%`],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        provider: 'mcp',
        model: `${provider.slug}.web_search`,
        status: 'success',
        run_status: 'succeeded',
        run_feature: 'pipeline_authoring_web_search',
      });
      expect(row.messages).toEqual([
        { role: 'user', content: expect.stringMatching(/great expectations checkpoints/i) },
      ]);
    }
    expect(rows[0].response).toMatch(/stored as evidence/);
    expect(rows[1].response).toMatch(/reused from evidence/);
    expect(rows[0].run_id).not.toBe(rows[1].run_id);
    const [evidence] = await dbQuery<{ run_id: string }>(
      `SELECT run_id FROM web_search_evidence WHERE id = $1`,
      [live.body.evidence_id],
    );
    expect(evidence.run_id).toBe(rows[0].run_id);
  });

  it('needs edit access to the space and a task of that space', async () => {
    const viewerUser = await createUser(t.http);
    await addMember(t.http, editor, space, viewerUser, 'viewer');
    expectProblem(await search(task.id, 'anything at all', viewerUser), 403);
    expectProblem(await search(task.id, 'anything at all', outsider), 404);
    expectProblem(await search(randomUUID(), 'anything at all'), 404);
  });
});

describe('capability and grant lifecycle', () => {
  it('answers 409 naming the readiness errors when the space has no bound web_search tool', async () => {
    const bare = await createSpace(t.http, editor);
    const task = await newTask(editor, {}, bare);
    const res = await search(task.id, 'anything at all', editor, {}, bare);
    expectProblem(res, 409);
    expect(res.body.detail).toMatch(/binding/i);
  });

  it('revokes the grant when the binding is deleted: a new binding needs its own consent', async () => {
    const s = await createSpace(t.http, editor);
    await bind(s, provider);
    const task = await newTask(editor, {}, s);
    const consentId = await consentTo(task.id, editor, s);
    expect((await search(task.id, 'binding scoped grant', editor, {}, s)).status).toBe(200);
    expect((await as(editor).delete(`/spaces/${s.slug}/ai/tool-capabilities/web_search`)).status).toBe(204);
    const [grant] = await dbQuery<{ revoked_at: Date | null }>(
      `SELECT revoked_at FROM tool_grants WHERE consent_id = $1`,
      [consentId],
    );
    expect(grant.revoked_at).not.toBeNull();
    const { bindingId: rebound } = await bind(s, provider);
    const again = await search(task.id, 'binding scoped grant', editor, {}, s);
    expect(again.status).toBe(202);
    expect(again.body.consent.scope.binding_id).toBe(rebound);
  });

  it('fails closed as soon as the capability stops being ready after a search, holding no quota slot while it refuses', async () => {
    const s = await createSpace(t.http, editor);
    const own = await registerAdapter();
    await bind(s, own);
    const task = await newTask(editor, {}, s);
    await consentTo(task.id, editor, s);
    expect((await search(task.id, 'ready before the change', editor, {}, s)).status).toBe(200);
    const credentialId = (await as(root).get(`/admin/ai/tool-providers/${own.id}`)).body.credential_id;
    const enablement = `/spaces/${s.slug}/ai/tool-providers/${own.id}/enablement`;
    const changes: Array<{ code: string; apply: () => Promise<Response>; undo: () => Promise<Response> }> = [
      {
        code: 'provider_inactive',
        apply: () => as(root).patch(`/admin/ai/tool-providers/${own.id}`, { is_active: false }),
        undo: () => as(root).patch(`/admin/ai/tool-providers/${own.id}`, { is_active: true }),
      },
      {
        code: 'credential_inactive',
        apply: () => as(root).patch(`/admin/credentials/${credentialId}`, { is_active: false }),
        undo: () => as(root).patch(`/admin/credentials/${credentialId}`, { is_active: true }),
      },
      {
        code: 'tool_unavailable',
        apply: () => as(editor).put(enablement, { enabled: false }),
        undo: () => as(editor).put(enablement, { enabled: true }),
      },
    ];
    metasearch.reset();
    for (const change of changes) {
      expect((await change.apply()).status).toBe(200);
      const refused = await search(task.id, `refused while ${change.code}`, editor, {}, s);
      expectProblem(refused, 409);
      expect(refused.body.readiness_errors.map((e: string) => e.split(':')[0])).toContain(change.code);
      // The statement that read the refusal's reasons reserved a slot with them: it was given back.
      expect(
        await dbQuery(
          `SELECT t.web_search_slots, (SELECT count(*)::int FROM web_search_evidence e WHERE e.task_id = t.id) AS evidence
           FROM authoring_tasks t WHERE t.id = $1`,
          [task.id],
        ),
      ).toEqual([{ web_search_slots: 1, evidence: 1 }]);
      expect((await change.undo()).status).toBe(200);
    }
    expect(metasearch.requests).toHaveLength(0);
    const after = await search(task.id, 'ready after the changes', editor, {}, s);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ calls_used: 2, reused: false });
  });

  it('revokes grants when the provider is deleted: searching fails closed, then asks again with a new provider', async () => {
    const s = await createSpace(t.http, editor);
    const own = await registerAdapter();
    await bind(s, own);
    const task = await newTask(editor, {}, s);
    const consentId = await consentTo(task.id, editor, s);
    expect((await search(task.id, 'provider scoped grant', editor, {}, s)).status).toBe(200);
    expect((await as(root).delete(`/admin/ai/tool-providers/${own.id}`)).status).toBe(204);
    const [grant] = await dbQuery<{ revoked_at: Date | null }>(
      `SELECT revoked_at FROM tool_grants WHERE consent_id = $1`,
      [consentId],
    );
    expect(grant.revoked_at).not.toBeNull();
    expectProblem(await search(task.id, 'provider scoped grant again', editor, {}, s), 409);
    const replacement = await registerAdapter();
    await bind(s, replacement);
    const again = await search(task.id, 'provider scoped grant again', editor, {}, s);
    expect(again.status).toBe(202);
    expect(again.body.consent.scope.provider_id).toBe(replacement.id);
  });
});
