import { Client } from 'pg';
import { startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dbQuery } from '../support/db';
import { bearer, createProduct, createSpace, createUser, TestUser } from '../support/factories';

const API = '/api/v1.0';

// No foreign key holds policy outcomes to their product (docs/decisions.md, "Policy outcomes written
// lean"): a delete's cleanup must wait for an evaluation that is writing outcomes of the product.
// PostgreSQL only: the race needs two connections, the embedded database serves one.
describe('policy outcomes of a deleted product', () => {
  let t: TestApp;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startApp();
    editor = await createUser(t.http);
  });
  afterAll(async () => {
    await t.close();
  });

  it('are deleted even when an evaluation writing them commits after the delete started', async () => {
    const space = await createSpace(t.http, editor);
    const product = await createProduct(t.http, editor, space, { name: 'doomed' });
    const policy = await t.http.post(`${API}/spaces/${space.slug}/policies`).set(bearer(editor)).send({
      name: 'Owned',
      policy_type: 'ownership',
      rule_expression: 'size(product.owners) > 0',
      severity: 'high',
    });
    expect(policy.status).toBe(201);

    // An evaluation in flight: it holds the space's outcome lock, as PolicyEvaluator does, and has
    // written the product's outcome but not committed yet.
    const evaluation = new Client({ connectionString: workerDatabaseUrl() });
    await evaluation.connect();
    try {
      await evaluation.query('BEGIN');
      await evaluation.query(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [
        `policy-outcomes:${space.id}`,
      ]);
      await evaluation.query(
        `INSERT INTO policy_evaluations (policy_id, product_id, status, message, evaluated_at)
         VALUES ($1, $2, 'non_compliant', 'x', now())
         ON CONFLICT (policy_id, product_id) DO UPDATE SET message = EXCLUDED.message`,
        [policy.body.id, product.id],
      );
      const deleted = t.http
        .delete(`${API}/catalog/spaces/${space.slug}/products/${product.id}`)
        .set(bearer(editor))
        .then((res) => res.status);
      // The delete waits for the outcome lock (polled: its wait shows in pg_locks).
      for (;;) {
        const [{ waiting }] = await dbQuery<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        );
        if (waiting) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await evaluation.query('COMMIT');
      expect(await deleted).toBe(204);
    } finally {
      await evaluation.end();
    }
    expect(await dbQuery(`SELECT 1 FROM policy_evaluations WHERE product_id = $1`, [product.id])).toEqual([]);
  });
});
