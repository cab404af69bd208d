import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, rootUser, TestUser } from '../support/factories';

const API = '/api/v1.0';

/** Filters of the list, alone and combined, as query strings. */
const FILTERS = [
  '',
  'provider=openai',
  'provider=anthropic',
  'feature=totals_a',
  'feature=totals_b',
  'status=success',
  'status=error',
  'status=blocked',
  'status=budget_exceeded',
  'feature=totals_a&status=success',
  'provider=anthropic&feature=totals_b',
  'provider=openai&feature=totals_a&status=error',
  'feature=totals_none',
];

/**
 * GET /admin/ai-logs answers `total` from the daily rollups for whole days
 * and counts the logs of the partial days at each end: it must equal an
 * exact count of the logs whatever the filters, across day boundaries, and
 * after retention has cut the oldest day short.
 */
describe('AI log list totals', () => {
  let t: TestApp;
  let root: TestUser;

  beforeAll(async () => {
    t = await startApp({ env: { AI_LOG_RETENTION_DAYS: '3' } });
    root = await rootUser(t.http);
    // Six UTC days, today included, with logs at and around midnight, as the gateway writes them:
    // each log with its rollup rows (the rollups of the day the log was written).
    await dbQuery(`
      INSERT INTO ai_logs (feature, provider, model, status, input_tokens, output_tokens, created_at)
      SELECT (ARRAY['totals_a', 'totals_b'])[1 + g % 2],
             CASE WHEN g % 3 = 0 THEN 'anthropic' ELSE 'openai' END,
             (ARRAY['m1', 'm2'])[1 + g % 5 % 2],
             (ARRAY['success', 'success', 'error', 'blocked', 'budget_exceeded', 'success', 'success'])[1 + g % 7],
             10, 5,
             (date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => d)
               + (ARRAY[interval '0', interval '1 millisecond', interval '6 hours', interval '12 hours',
                        interval '23:59:59.999'])[1 + g % 5]) AT TIME ZONE 'UTC'
        FROM generate_series(0, 5) d, generate_series(1, 40) g`);
    await dbQuery(`
      INSERT INTO ai_usage_daily AS u (day, feature, provider, model, calls, failures, blocked, budget_exceeded,
        guarded_calls, input_tokens, output_tokens, cost_usd, latency_ms_total)
      SELECT (created_at AT TIME ZONE 'UTC')::date, feature, provider, model, count(*),
             count(*) FILTER (WHERE status = 'error'), count(*) FILTER (WHERE status = 'blocked'),
             count(*) FILTER (WHERE status = 'budget_exceeded'), 0, sum(input_tokens), sum(output_tokens), 0, 0
        FROM ai_logs WHERE feature IN ('totals_a', 'totals_b') GROUP BY 1, 2, 3, 4
      ON CONFLICT (day, feature, provider, model) DO UPDATE SET calls = u.calls + EXCLUDED.calls,
        failures = u.failures + EXCLUDED.failures, blocked = u.blocked + EXCLUDED.blocked,
        budget_exceeded = u.budget_exceeded + EXCLUDED.budget_exceeded`);
  });
  afterAll(() => t.close());

  async function exactCount(query: string): Promise<number> {
    const params = new URLSearchParams(query);
    const rules: string[] = [];
    const values: string[] = [];
    for (const column of ['provider', 'feature', 'status']) {
      const value = params.get(column);
      if (value === null) continue;
      values.push(value);
      rules.push(`${column} = $${values.length}`);
    }
    const [row] = await dbQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM ai_logs ${rules.length ? `WHERE ${rules.join(' AND ')}` : ''}`,
      values,
    );
    return row.n;
  }

  async function expectExactTotals(): Promise<void> {
    for (const query of FILTERS) {
      const res = await t.http.get(`${API}/admin/ai-logs?${query}&limit=5`).set(bearer(root));
      expect(res.status).toBe(200);
      expect({ query, total: res.body.total }).toEqual({ query, total: await exactCount(query) });
      expect(res.body.items.length).toBe(Math.min(5, res.body.total));
    }
  }

  it('equals the exact count for every filter across day boundaries', async () => {
    expect(await exactCount('feature=totals_a')).toBe(120);
    await expectExactTotals();
    // The last page of a filter holds what the total says is left.
    const total = (await t.http.get(`${API}/admin/ai-logs?feature=totals_b`).set(bearer(root))).body
      .total as number;
    const last = await t.http
      .get(`${API}/admin/ai-logs?feature=totals_b&skip=${total - 3}&limit=10`)
      .set(bearer(root));
    expect(last.body.items).toHaveLength(3);
  });

  it('stays exact when retention has removed part of the oldest days (their rollups stay)', async () => {
    const rollupsBefore = await dbQuery('SELECT 1 FROM ai_usage_daily');
    const jobs = t.app.get(JobRunner);
    await jobs.enqueue(null, 'ai.retention', {});
    await jobs.drain();
    // Logs more than 3 days old went, rollups did not: the oldest day left is cut short.
    const [left] = await dbQuery<{ oldest: Date; cutoff: Date }>(
      `SELECT min(created_at) AS oldest, now() - interval '3 days' AS cutoff FROM ai_logs`,
    );
    expect(left.oldest.getTime()).toBeGreaterThanOrEqual(left.cutoff.getTime());
    expect(await dbQuery('SELECT 1 FROM ai_usage_daily')).toHaveLength(rollupsBefore.length);
    expect(await exactCount('feature=totals_a')).toBeLessThan(120);
    await expectExactTotals();
  });
});
