import { randomUUID } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createUser, rootUser, TestUser } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';

describe('AI feedback', () => {
  let t: TestApp;
  let root: TestUser;
  let user: TestUser;
  // Unique per run: the feature names isolate this suite's rows in the stats.
  const tag = randomUUID().slice(0, 8);
  const explain = `alert_explain_${tag}`;
  const search = `search_${tag}`;

  beforeAll(async () => {
    t = await startApp();
    [root, user] = await Promise.all([rootUser(t.http), createUser(t.http, { first_name: 'Fay' })]);
  });
  afterAll(() => t.close());

  const give = (who: TestUser, body: Record<string, unknown>) =>
    t.http.post(`${API}/ai-feedback`).set(bearer(who)).send(body);

  it('records feedback from any signed-in user, with the caller as user_id', async () => {
    const res = await give(user, {
      feature: explain,
      suggestion_id: 'hyp-1',
      rating: 'accepted',
      comment: 'Spot on',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      feature: explain,
      log_id: null,
      suggestion_id: 'hyp-1',
      rating: 'accepted',
      comment: 'Spot on',
      user_id: user.id,
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it('refuses a log_id that names no AI log entry (the explanation suite gives a real one)', async () => {
    const res = await give(user, { feature: explain, log_id: randomUUID(), rating: 'accepted' });
    expectProblem(res, 422, /log_id/);
    expect(invalidFields(res)).toEqual(['log_id']);
  });

  it('rejects bad input with 422 naming the fields, and anonymous callers with 401', async () => {
    const res = await give(user, { feature: 'Alert Explain', rating: 'loved', extra: 1, log_id: 'x' });
    expectProblem(res, 422);
    expect(invalidFields(res).sort()).toEqual(['extra', 'feature', 'log_id', 'rating']);
    expectProblem(
      await t.http.post(`${API}/ai-feedback`).send({ feature: explain, rating: 'accepted' }),
      401,
    );
  });

  it('keeps list, stats and export for superadmins (403 otherwise)', async () => {
    for (const path of ['', '/stats', '/export?format=csv', '/export?format=json']) {
      expectProblem(await t.http.get(`${API}/ai-feedback${path}`).set(bearer(user)), 403);
    }
  });

  it('lists newest first with page and size, filtered', async () => {
    for (const rating of ['rejected', 'edited', 'accepted', 'accepted']) {
      expect((await give(user, { feature: search, rating })).status).toBe(201);
    }
    const first = await t.http.get(`${API}/ai-feedback?feature=${search}&size=3`).set(bearer(root));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 4, page: 1, size: 3 });
    expect(first.body.items).toHaveLength(3);
    const second = await t.http.get(`${API}/ai-feedback?feature=${search}&size=3&page=2`).set(bearer(root));
    expect(second.body.items.map((i: { rating: string }) => i.rating)).toEqual(['rejected']);
    const accepted = await t.http
      .get(`${API}/ai-feedback?feature=${search}&rating=accepted`)
      .set(bearer(root));
    expect(accepted.body.total).toBe(2);
    const future = await t.http
      .get(`${API}/ai-feedback?feature=${search}&since=2999-01-01T00:00:00Z`)
      .set(bearer(root));
    expect(future.body.total).toBe(0);
    expectProblem(await t.http.get(`${API}/ai-feedback?size=500`).set(bearer(root)), 422);
  });

  it('answers acceptance rates as fractions, edited counting as taken up', async () => {
    const res = await t.http.get(`${API}/ai-feedback/stats`).set(bearer(root));
    expect(res.status).toBe(200);
    const mine = res.body.filter((s: { feature: string }) => s.feature.endsWith(tag));
    expect(mine).toEqual([
      { feature: explain, total: 1, accepted: 1, rejected: 0, edited: 0, acceptance_rate: 1 },
      { feature: search, total: 4, accepted: 2, rejected: 1, edited: 1, acceptance_rate: 0.75 },
    ]);
  });

  it('exports CSV with quoting and defused formulas, and JSON, as downloads', async () => {
    const feature = `export_${tag}`;
    await give(user, { feature, rating: 'edited', comment: '=HYPERLINK("http://evil")' });
    await give(user, { feature, rating: 'rejected', comment: 'line one\nline "two", end' });
    const csv = await t.http.get(`${API}/ai-feedback/export?format=csv&feature=${feature}`).set(bearer(root));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="ai-feedback-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = csv.text;
    expect(text.split('\r\n')[0]).toBe('id,feature,log_id,suggestion_id,rating,comment,user_id,created_at');
    expect(text).toContain(`,edited,"'=HYPERLINK(""http://evil"")",${user.id},`);
    expect(text).toContain(`,rejected,"line one\nline ""two"", end",`);

    const json = await t.http
      .get(`${API}/ai-feedback/export?format=json&feature=${feature}`)
      .set(bearer(root));
    expect(json.status).toBe(200);
    expect(json.headers['content-disposition']).toMatch(/\.json"$/);
    const rows = JSON.parse(json.text) as { rating: string; comment: string }[];
    expect(rows.map((r) => [r.rating, r.comment])).toEqual([
      ['edited', '=HYPERLINK("http://evil")'],
      ['rejected', 'line one\nline "two", end'],
    ]);
    const empty = await t.http
      .get(`${API}/ai-feedback/export?format=json&feature=none_${tag}`)
      .set(bearer(root));
    expect(JSON.parse(empty.text)).toEqual([]);
    expectProblem(await t.http.get(`${API}/ai-feedback/export?format=xlsx`).set(bearer(root)), 422);
  });

  it('exports every row past one batch, each once', async () => {
    const feature = `bulk_${tag}`;
    // 1,005 rows: more than one export batch of 1,000.
    const values = Array.from(
      { length: 1005 },
      (_, i) => `('${feature}', 'accepted', '${i}', '${user.id}')`,
    ).join(',');
    await dbQuery(`INSERT INTO ai_feedback (feature, rating, comment, user_id) VALUES ${values}`);
    const json = await t.http
      .get(`${API}/ai-feedback/export?format=json&feature=${feature}`)
      .set(bearer(root));
    const rows = JSON.parse(json.text) as { id: string }[];
    expect(rows).toHaveLength(1005);
    expect(new Set(rows.map((r) => r.id)).size).toBe(1005);
  });
});
