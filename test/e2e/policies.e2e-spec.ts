import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  rootUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

const API = '/api/v1.0';

describe('policies', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    [admin, editor, viewer, outsider] = await Promise.all([
      createUser(t.http, { first_name: 'Ada' }),
      createUser(t.http, { first_name: 'Ed' }),
      createUser(t.http, { first_name: 'Vi' }),
      createUser(t.http, { first_name: 'Out' }),
    ]);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function newSpace(): Promise<TestSpace> {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    return s;
  }

  const base = (s: TestSpace) => `${API}/spaces/${s.slug}/policies`;

  /** Lets the background evaluation jobs and outbox consumers finish. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await t.app.get(JobRunner).drain();
      await t.app.get(OutboxDispatcher).drain();
    }
  }

  async function createPolicy(s: TestSpace, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(base(s))
      .set(bearer(editor))
      .send({
        name: `Owned ${Math.random().toString(36).slice(2, 8)}`,
        policy_type: 'ownership',
        rule_expression: 'size(product.owners) > 0',
        severity: 'high',
        ...fields,
      });
    if (res.status !== 201) throw new Error(`create policy: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown> & { id: string; name: string };
  }

  const violations = async (s: TestSpace, productId: string) => {
    const res = await t.http
      .get(`${API}/spaces/${s.slug}/products/${productId}/violations`)
      .set(bearer(viewer));
    expect(res.status).toBe(200);
    return res.body as { policy_id: string; policy_name: string; severity: string; message: string }[];
  };

  describe('CRUD', () => {
    it('creates, reads, updates, lists, archives and deletes', async () => {
      const s = await newSpace();
      const res = await t.http.post(base(s)).set(bearer(editor)).send({
        name: 'Has owner',
        description: 'Accountability',
        policy_type: 'ownership',
        rule_expression: 'size(product.owners) > 0',
        severity: 'critical',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        space_id: s.id,
        name: 'Has owner',
        description: 'Accountability',
        policy_type: 'ownership',
        rule_expression: 'size(product.owners) > 0',
        severity: 'critical',
        is_enabled: true,
        is_archived: false,
        archived_at: null,
        last_evaluated_at: null,
        created_by: editor.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const id = res.body.id as string;
      // The background evaluation of the new policy may have run meanwhile.
      const got = (await t.http.get(`${base(s)}/${id}`).set(bearer(viewer))).body;
      expect(got).toEqual({ ...res.body, last_evaluated_at: got.last_evaluated_at });

      expectProblem(
        await t.http
          .post(base(s))
          .set(bearer(editor))
          .send({ name: 'HAS OWNER', policy_type: 'custom', rule_expression: 'true', severity: 'low' }),
        409,
      );

      const patched = await t.http
        .patch(`${base(s)}/${id}`)
        .set(bearer(editor))
        .send({ severity: 'low', is_enabled: false });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual(
        expect.objectContaining({ severity: 'low', is_enabled: false, name: 'Has owner' }),
      );
      const doc = await createPolicy(s, { name: 'Documented', policy_type: 'documentation' });
      expectProblem(
        await t.http
          .patch(`${base(s)}/${doc.id}`)
          .set(bearer(editor))
          .send({ name: 'has owner' }),
        409,
      );

      const names = async (query = '') =>
        ((await t.http.get(`${base(s)}${query}`).set(bearer(viewer))).body.items as { name: string }[]).map(
          (p) => p.name,
        );
      expect(await names()).toEqual(['Documented', 'Has owner']);
      expect(await names('?policy_type=documentation')).toEqual(['Documented']);
      expect(await names('?is_enabled=false')).toEqual(['Has owner']);
      expect(await names('?is_enabled=true')).toEqual(['Documented']);
      expect(await names('?limit=1&skip=1')).toEqual(['Has owner']);

      const archived = await t.http.post(`${base(s)}/${id}/archive`).set(bearer(editor));
      expect(archived.status).toBe(200);
      expect(archived.body).toEqual(
        expect.objectContaining({ is_archived: true, archived_at: expect.any(String) }),
      );
      expect(await names()).toEqual(['Documented']);
      expect(await names('?include_archived=true')).toEqual(['Documented', 'Has owner']);
      const total = (await t.http.get(`${base(s)}?include_archived=true`).set(bearer(viewer))).body.total;
      expect(total).toBe(2);
      const unarchived = await t.http.post(`${base(s)}/${id}/unarchive`).set(bearer(editor));
      expect(unarchived.body).toEqual(expect.objectContaining({ is_archived: false, archived_at: null }));

      await t.http
        .delete(`${base(s)}/${id}`)
        .set(bearer(editor))
        .expect(204);
      expectProblem(await t.http.get(`${base(s)}/${id}`).set(bearer(viewer)), 404);
      expectProblem(await t.http.delete(`${base(s)}/${id}`).set(bearer(editor)), 404);
      expectProblem(await t.http.post(`${base(s)}/${id}/archive`).set(bearer(editor)), 404);
      expectProblem(await t.http.post(`${base(s)}/${id}/evaluate`).set(bearer(editor)), 404);
      expectProblem(await t.http.get(`${base(s)}/${id}/evaluations`).set(bearer(viewer)), 404);
    });

    it('validates enums, fields and query parameters with 422', async () => {
      const s = await newSpace();
      const valid = { name: 'x', policy_type: 'custom', rule_expression: 'true', severity: 'low' };
      for (const [field, value] of [
        ['policy_type', 'vibes'],
        ['severity', 'urgent'],
        ['is_enabled', 'yes'],
        ['rule_expression', ''],
      ]) {
        const res = await t.http
          .post(base(s))
          .set(bearer(editor))
          .send({ ...valid, [field]: value });
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual([field]);
      }
      expectProblem(
        await t.http
          .post(base(s))
          .set(bearer(editor))
          .send({ ...valid, extra: 1 }),
        422,
      );
      for (const q of ['limit=201', 'skip=-1', 'policy_type=x', 'is_enabled=maybe']) {
        expectProblem(await t.http.get(`${base(s)}?${q}`).set(bearer(viewer)), 422);
      }
    });

    it('type-checks CEL at create and update: 422 naming the position, nothing stored', async () => {
      const s = await newSpace();
      const bad = async (rule: string) => {
        const res = await t.http
          .post(base(s))
          .set(bearer(editor))
          .send({ name: 'Bad', policy_type: 'custom', rule_expression: rule, severity: 'low' });
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual(['rule_expression']);
        return res.body as { detail: string; position: number; line: number; column: number };
      };
      const syntax = await bad('size(product.owners) >');
      expect(syntax.detail).toMatch(/position 22 \(line 1, column 23\)/);
      expect(syntax).toEqual(expect.objectContaining({ position: 22, line: 1, column: 23 }));
      const unknownField = await bad('product.onwers == []');
      expect(unknownField.detail).toMatch(/position 8 .*onwers/);
      const notBoolean = await bad('product.name');
      expect(notBoolean.detail).toMatch(/position 0 .*boolean, not string/);
      await bad('size(product.tags) + "x" > 1');
      expect((await t.http.get(`${base(s)}?include_archived=true`).set(bearer(viewer))).body.total).toBe(0);

      const policy = await createPolicy(s);
      const patched = await t.http
        .patch(`${base(s)}/${policy.id}`)
        .set(bearer(editor))
        .send({ rule_expression: 'product.name ==' });
      expectProblem(patched, 422, /position 15/);
      expect((await t.http.get(`${base(s)}/${policy.id}`).set(bearer(viewer))).body.rule_expression).toBe(
        'size(product.owners) > 0',
      );
    });

    it('serves templates that are valid CEL and can be created as they are', async () => {
      const s = await newSpace();
      const res = await t.http.get(`${base(s)}/templates`).set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(res.body.length).toBeGreaterThanOrEqual(5);
      for (const { key: _key, ...template } of res.body as Record<string, string>[]) {
        await t.http.post(base(s)).set(bearer(editor)).send(template).expect(201);
      }
    });

    it('enforces roles', async () => {
      const s = await newSpace();
      const policy = await createPolicy(s);
      const body = { name: 'y', policy_type: 'custom', rule_expression: 'true', severity: 'low' };
      expectProblem(await t.http.post(base(s)).set(bearer(viewer)).send(body), 403);
      expectProblem(
        await t.http
          .patch(`${base(s)}/${policy.id}`)
          .set(bearer(viewer))
          .send({ severity: 'low' }),
        403,
      );
      expectProblem(await t.http.delete(`${base(s)}/${policy.id}`).set(bearer(viewer)), 403);
      expectProblem(await t.http.post(`${base(s)}/${policy.id}/archive`).set(bearer(viewer)), 403);
      expectProblem(await t.http.post(`${base(s)}/${policy.id}/evaluate`).set(bearer(viewer)), 403);
      expectProblem(await t.http.post(`${base(s)}/evaluate-all`).set(bearer(viewer)), 403);
      expectProblem(
        await t.http
          .post(`${base(s)}/dry-run`)
          .set(bearer(viewer))
          .send({ rule_expression: 'true' }),
        403,
      );
      expectProblem(await t.http.get(base(s)).set(bearer(outsider)), 404);
      expectProblem(await t.http.get(`${base(s)}/compliance-summary`).set(bearer(outsider)), 404);
      expect((await t.http.get(`${base(s)}/compliance-summary`).set(bearer(viewer))).status).toBe(200);
    });
  });

  describe('evaluation', () => {
    it('evaluates a policy, records run-time errors per product and lists the latest evaluations', async () => {
      const s = await newSpace();
      const owned = await createProduct(t.http, editor, s, {
        name: 'owned',
        owner_ids: [editor.id],
        attributes: { retention_days: 30 },
      });
      const orphan = await createProduct(t.http, editor, s, {
        name: 'orphan',
        attributes: { retention_days: 400 },
      });
      const broken = await createProduct(t.http, editor, s, { name: 'broken' });
      const policy = await createPolicy(s, {
        name: 'Retention',
        policy_type: 'privacy',
        rule_expression: 'product.attributes.retention_days <= 365',
        is_enabled: false,
      });
      const res = await t.http.post(`${base(s)}/${policy.id}/evaluate`).set(bearer(editor));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        policy_id: policy.id,
        total_products_evaluated: 3,
        compliant: 1,
        violations_found: 1,
        errors: 1,
        evaluated_at: expect.any(String),
      });
      const list = await t.http.get(`${base(s)}/${policy.id}/evaluations`).set(bearer(viewer));
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(3);
      const byName = Object.fromEntries(
        (list.body.items as { product_name: string }[]).map((e) => [e.product_name, e]),
      ) as Record<string, Record<string, unknown>>;
      expect(byName.owned).toEqual({
        id: expect.any(String),
        policy_id: policy.id,
        product_id: owned.id,
        product_name: 'owned',
        status: 'compliant',
        message: null,
        evaluated_at: res.body.evaluated_at,
      });
      expect(byName.orphan).toEqual(
        expect.objectContaining({
          product_id: orphan.id,
          status: 'non_compliant',
          message: expect.stringContaining('Retention'),
        }),
      );
      expect(byName.broken).toEqual(
        expect.objectContaining({
          product_id: broken.id,
          status: 'error',
          message: expect.stringMatching(/retention_days/),
        }),
      );
      const errorsOnly = await t.http
        .get(`${base(s)}/${policy.id}/evaluations?status=error`)
        .set(bearer(viewer));
      expect(errorsOnly.body.items.map((e: { product_id: string }) => e.product_id)).toEqual([broken.id]);
      expect((await t.http.get(`${base(s)}/${policy.id}`).set(bearer(viewer))).body.last_evaluated_at).toBe(
        res.body.evaluated_at,
      );

      // A second run finds the same: still one row per product, dated by the new run.
      const again = await t.http.post(`${base(s)}/${policy.id}/evaluate`).set(bearer(editor));
      const list2 = await t.http.get(`${base(s)}/${policy.id}/evaluations`).set(bearer(viewer));
      expect(list2.body.total).toBe(3);
      expect(
        list2.body.items.every((e: { evaluated_at: string }) => e.evaluated_at === again.body.evaluated_at),
      ).toBe(true);
    });

    it('answers each outcome with one id for good: derived from its key, or the one a row already stores', async () => {
      const s = await newSpace();
      const products = await Promise.all(
        ['a', 'b', 'c'].map((name) => createProduct(t.http, editor, s, { name, description: 'short' })),
      );
      const policy = await createPolicy(s, {
        name: 'Described',
        rule_expression: 'size(product.description) >= 10',
        is_enabled: false,
      });
      const idsOf = async (): Promise<Record<string, string>> => {
        const list = await t.http.get(`${base(s)}/${policy.id}/evaluations`).set(bearer(viewer));
        return Object.fromEntries(
          (list.body.items as { product_id: string; id: string }[]).map((e) => [e.product_id, e.id]),
        );
      };
      await t.http
        .post(`${base(s)}/${policy.id}/evaluate`)
        .set(bearer(editor))
        .expect(200);
      const first = await idsOf();
      expect(Object.keys(first).sort()).toEqual(products.map((p) => p.id).sort());
      expect(new Set(Object.values(first)).size).toBe(3);
      for (const id of Object.values(first)) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
      // Written without an id: nothing is drawn per row.
      expect(
        await dbQuery(
          `SELECT count(*)::int AS n FROM policy_evaluations WHERE policy_id = $1 AND id IS NULL`,
          [policy.id],
        ),
      ).toEqual([{ n: 3 }]);

      // A row written before ids were derived keeps the id it stores.
      const stored = '0b6f1c4e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';
      await dbQuery(`UPDATE policy_evaluations SET id = $3 WHERE policy_id = $1 AND product_id = $2`, [
        policy.id,
        products[0].id,
        stored,
      ]);
      // An outcome that changes keeps its id, as does one rewritten after its row was deleted.
      await t.http
        .patch(`${API}/catalog/spaces/${s.slug}/products/${products[1].id}`)
        .set(bearer(editor))
        .send({ description: 'long enough to comply' })
        .expect(200);
      await dbQuery(`DELETE FROM policy_evaluations WHERE policy_id = $1 AND product_id = $2`, [
        policy.id,
        products[2].id,
      ]);
      await t.http
        .post(`${base(s)}/${policy.id}/evaluate`)
        .set(bearer(editor))
        .expect(200);
      expect(await idsOf()).toEqual({ ...first, [products[0].id]: stored });
    });

    it('evaluates all enabled, unarchived policies, summarises compliance and lists product violations', async () => {
      const s = await newSpace();
      const good = await createProduct(t.http, editor, s, {
        name: 'good',
        owner_ids: [editor.id],
        description: 'A thoroughly documented product',
      });
      const bad = await createProduct(t.http, editor, s, { name: 'bad' });
      const owners = await createPolicy(s, { name: 'Owners', severity: 'critical' });
      const docs = await createPolicy(s, {
        name: 'Docs',
        policy_type: 'documentation',
        rule_expression: 'product.description != null && size(product.description) >= 20',
        severity: 'medium',
      });
      const broken = await createPolicy(s, {
        name: 'Broken',
        policy_type: 'custom',
        rule_expression: 'product.attributes.nope == 1',
        severity: 'low',
      });
      const disabled = await createPolicy(s, {
        name: 'Disabled',
        is_enabled: false,
        rule_expression: 'false',
      });
      const archived = await createPolicy(s, { name: 'Archived', rule_expression: 'false' });
      await t.http
        .post(`${base(s)}/${archived.id}/archive`)
        .set(bearer(editor))
        .expect(200);
      // The products' own automatic evaluation (product.created) first: it would restamp evaluated_at after.
      await settle();

      const res = await t.http.post(`${base(s)}/evaluate-all`).set(bearer(editor));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        policies_evaluated: 3,
        total_products_evaluated: 2,
        violations_found: 2,
        errors: 2,
        evaluated_at: expect.any(String),
      });

      const summary = await t.http.get(`${base(s)}/compliance-summary`).set(bearer(viewer));
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual({
        total_policies: 4,
        enabled_policies: 3,
        total_products: 2,
        compliant_products: 0,
        non_compliant_products: 1,
        compliance_rate: 0,
        by_severity: {
          critical: { policies: 1, violations: 1 },
          high: { policies: 0, violations: 0 },
          medium: { policies: 1, violations: 1 },
          low: { policies: 1, violations: 0 },
        },
        by_policy: [
          { policy_id: broken.id, name: 'Broken', severity: 'low', compliant: 0, violations: 0 },
          { policy_id: docs.id, name: 'Docs', severity: 'medium', compliant: 1, violations: 1 },
          { policy_id: owners.id, name: 'Owners', severity: 'critical', compliant: 1, violations: 1 },
        ],
      });

      expect(await violations(s, good.id)).toEqual([]);
      expect(await violations(s, bad.id)).toEqual([
        {
          policy_id: owners.id,
          policy_name: 'Owners',
          severity: 'critical',
          message: expect.any(String),
          evaluated_at: res.body.evaluated_at,
        },
        expect.objectContaining({ policy_id: docs.id, policy_name: 'Docs', severity: 'medium' }),
      ]);
      // Disabling or archiving a policy takes its violations out.
      await t.http
        .patch(`${base(s)}/${docs.id}`)
        .set(bearer(editor))
        .send({ is_enabled: false })
        .expect(200);
      await t.http
        .post(`${base(s)}/${owners.id}/archive`)
        .set(bearer(editor))
        .expect(200);
      expect(await violations(s, bad.id)).toEqual([]);
      await t.http
        .delete(`${base(s)}/${broken.id}`)
        .set(bearer(editor))
        .expect(204);
      const after = await t.http.get(`${base(s)}/compliance-summary`).set(bearer(viewer));
      expect(after.body).toEqual(
        expect.objectContaining({
          enabled_policies: 0,
          compliant_products: 2,
          compliance_rate: 100,
          by_policy: [],
        }),
      );
      expect(disabled.is_enabled).toBe(false);
      expectProblem(
        await t.http
          .get(`${API}/spaces/${s.slug}/products/00000000-0000-4000-8000-000000000000/violations`)
          .set(bearer(viewer)),
        404,
      );
    });

    it("deletes a product's and a policy's outcomes with them, and a space's with it", async () => {
      const s = await newSpace();
      const [a, b] = [
        await createProduct(t.http, editor, s, { name: 'a' }),
        await createProduct(t.http, editor, s, { name: 'b' }),
      ];
      const [p1, p2] = [await createPolicy(s, { name: 'One' }), await createPolicy(s, { name: 'Two' })];
      await t.http
        .post(`${base(s)}/evaluate-all`)
        .set(bearer(editor))
        .expect(200);
      const stored = async () =>
        (
          await dbQuery<{ policy_id: string; product_id: string }>(
            `SELECT policy_id, product_id FROM policy_evaluations WHERE policy_id = ANY($1::uuid[])
              ORDER BY policy_id, product_id`,
            [[p1.id, p2.id]],
          )
        ).map((r) => `${r.policy_id}/${r.product_id}`);
      const pairs = (policies: string[], products: string[]) =>
        policies.flatMap((p) => products.map((q) => `${p}/${q}`)).sort();
      expect(await stored()).toEqual(pairs([p1.id, p2.id], [a.id, b.id]));

      await t.http.delete(`${API}/catalog/spaces/${s.slug}/products/${a.id}`).set(bearer(editor)).expect(204);
      expect(await stored()).toEqual(pairs([p1.id, p2.id], [b.id]));
      await t.http
        .delete(`${base(s)}/${p1.id}`)
        .set(bearer(editor))
        .expect(204);
      expect(await stored()).toEqual(pairs([p2.id], [b.id]));
      await settle();
      await t.http
        .delete(`${API}/spaces/${s.slug}`)
        .set(bearer(await rootUser(t.http)))
        .expect(204);
      expect(await stored()).toEqual([]);
    });

    it('dry-runs a draft rule without storing anything', async () => {
      const s = await newSpace();
      await createProduct(t.http, editor, s, { name: 'a-tagged', tags: ['pii'] });
      const plain = await createProduct(t.http, editor, s, { name: 'b-plain' });
      const res = await t.http
        .post(`${base(s)}/dry-run`)
        .set(bearer(editor))
        .send({ rule_expression: '"pii" in product.tags' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        total_products_evaluated: 2,
        compliant: 1,
        violations_found: 1,
        errors: 0,
        findings: [
          {
            product_id: plain.id,
            product_name: 'b-plain',
            status: 'non_compliant',
            message: expect.any(String),
          },
        ],
        truncated: false,
      });
      const erroring = await t.http
        .post(`${base(s)}/dry-run`)
        .set(bearer(editor))
        .send({ rule_expression: 'product.attributes.x' });
      expect(erroring.body).toEqual(expect.objectContaining({ errors: 2, compliant: 0 }));
      expectProblem(
        await t.http
          .post(`${base(s)}/dry-run`)
          .set(bearer(editor))
          .send({ rule_expression: '1 +' }),
        422,
        /position 3/,
      );
      const stored = await dbQuery(
        `SELECT 1 FROM policy_evaluations e JOIN products p ON p.id = e.product_id WHERE p.space_id = $1`,
        [s.id],
      );
      expect(stored).toEqual([]);
      expect((await t.http.get(`${base(s)}?include_archived=true`).set(bearer(viewer))).body.total).toBe(0);
    });
  });

  describe('continuous evaluation', () => {
    it('evaluates a new policy in the background and re-evaluates products as they change, emitting policy.violated', async () => {
      const s = await newSpace();
      await t.http
        .post(`${API}/spaces/${s.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url: receiver.url, event_types: ['policy.violated'] })
        .expect(201);
      const before = await createProduct(t.http, editor, s, { name: 'before', owner_ids: [editor.id] });
      const policy = await createPolicy(s, { name: 'Owners' });
      await settle();
      expect(
        (await t.http.get(`${base(s)}/${policy.id}/evaluations`).set(bearer(viewer))).body.items,
      ).toEqual([expect.objectContaining({ product_id: before.id, status: 'compliant' })]);

      // A new product without owners becomes a violation with no one pressing a button.
      const orphan = await createProduct(t.http, editor, s, { name: 'orphan' });
      await settle();
      expect((await violations(s, orphan.id)).map((v) => v.policy_id)).toEqual([policy.id]);

      // Losing its owners turns a compliant product non-compliant.
      await t.http
        .patch(`${API}/catalog/spaces/${s.slug}/products/${before.id}`)
        .set(bearer(editor))
        .send({ owner_ids: [] })
        .expect(200);
      await settle();
      expect((await violations(s, before.id)).map((v) => v.policy_id)).toEqual([policy.id]);

      const events = (await receiver.waitForCount(2)).map(
        (r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> },
      );
      expect(events.map((e) => e.type)).toEqual(['policy.violated', 'policy.violated']);
      expect(events.map((e) => e.data.product_id).sort()).toEqual([orphan.id, before.id].sort());
      expect(events.find((e) => e.data.product_id === before.id)!.data).toEqual(
        expect.objectContaining({
          policy_id: policy.id,
          policy_name: 'Owners',
          severity: 'high',
          space_id: s.id,
          product_name: 'before',
          previous_status: 'compliant',
        }),
      );

      // Fixing it clears the violation.
      await t.http
        .patch(`${API}/catalog/spaces/${s.slug}/products/${orphan.id}`)
        .set(bearer(editor))
        .send({ owner_ids: [viewer.id] })
        .expect(200);
      await settle();
      expect(await violations(s, orphan.id)).toEqual([]);
    });

    it('notifies the owners of a product that turns non-compliant', async () => {
      const s = await newSpace();
      const product = await createProduct(t.http, editor, s, {
        name: 'documented',
        owner_ids: [viewer.id],
        description: 'long enough description',
      });
      await createPolicy(s, {
        name: 'Docs',
        policy_type: 'documentation',
        rule_expression: 'product.description != null && size(product.description) >= 20',
      });
      await settle();
      await t.http
        .patch(`${API}/catalog/spaces/${s.slug}/products/${product.id}`)
        .set(bearer(editor))
        .send({ description: 'short' })
        .expect(200);
      await settle();
      const notes = await t.http.get(`${API}/notifications?type=contract_violation`).set(bearer(viewer));
      expect(notes.status).toBe(200);
      expect(notes.body.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            type: 'contract_violation',
            title: 'documented violates "Docs"',
            data: expect.objectContaining({ product_id: product.id, space_id: s.id }),
          }),
        ]),
      );
    });

    it('re-evaluates when the product opens or resolves an incident', async () => {
      const s = await newSpace();
      const product = await createProduct(t.http, editor, s, { name: 'calm' });
      const policy = await createPolicy(s, {
        name: 'No incidents',
        policy_type: 'data_quality',
        rule_expression: 'product.open_incident_count == 0',
      });
      await settle();
      expect(await violations(s, product.id)).toEqual([]);
      const alert = await t.http
        .post(`${API}/spaces/${s.slug}/alerts`)
        .set(bearer(editor))
        .send({ product_id: product.id, alert_type: 'anomaly', severity: 'high', message: 'spike' });
      expect(alert.status).toBe(201);
      await settle();
      expect((await violations(s, product.id)).map((v) => v.policy_id)).toEqual([policy.id]);
      await t.http
        .post(`${API}/spaces/${s.slug}/incidents/${alert.body.incident_id}/resolve`)
        .set(bearer(editor))
        .expect(200);
      await settle();
      expect(await violations(s, product.id)).toEqual([]);
    });

    it('re-evaluates the space when a metadata value is renamed', async () => {
      const s = await newSpace();
      const level = await t.http
        .post(`${API}/spaces/${s.slug}/config/criticality-levels`)
        .set(bearer(admin))
        .send({ name: 'Gold' });
      expect(level.status).toBe(201);
      const product = await createProduct(t.http, editor, s, { name: 'gold', criticality: 'Gold' });
      const policy = await createPolicy(s, {
        name: 'Gold only',
        rule_expression: 'product.criticality == "Gold"',
      });
      await settle();
      expect(await violations(s, product.id)).toEqual([]);
      await t.http
        .patch(`${API}/spaces/${s.slug}/config/criticality-levels/${level.body.id}`)
        .set(bearer(admin))
        .send({ name: 'Platinum' })
        .expect(200);
      await settle();
      expect((await violations(s, product.id)).map((v) => v.policy_id)).toEqual([policy.id]);
    });
  });
});
