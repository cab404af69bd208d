import { MailerService } from '../../src/platform/mail/mailer.service';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';

const API = '/api/v1.0';

describe('reports', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let space: TestSpace;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url } });
    [admin, editor, viewer, outsider] = await Promise.all([
      createUser(t.http, { first_name: 'Ada' }),
      createUser(t.http, { first_name: 'Ed' }),
      createUser(t.http, { first_name: 'Vi' }),
      createUser(t.http, { first_name: 'Out' }),
    ]);
    space = await newSpace();
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function newSpace(): Promise<TestSpace> {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    await addMember(t.http, admin, s, viewer, 'viewer');
    return s;
  }

  const base = (s: TestSpace) => `${API}/spaces/${s.slug}/reports`;

  async function createReport(s: TestSpace, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(base(s))
      .set(bearer(editor))
      .send({
        name: 'Weekly',
        report_type: 'catalog_inventory',
        frequency: 'weekly',
        recipients: ['a@example.test'],
        ...fields,
      });
    if (res.status !== 201) throw new Error(`create report: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown> & { id: string };
  }

  describe('schedules', () => {
    it('creates a schedule with next_run_at at 08:00 in its time zone', async () => {
      const res = await t.http
        .post(base(space))
        .set(bearer(editor))
        .send({
          name: 'Daily compliance',
          report_type: 'compliance_summary',
          frequency: 'daily',
          timezone: 'Europe/Berlin',
          recipients: ['Boss@Example.test', 'boss@example.test', 'ops@example.test'],
        });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        space_id: space.id,
        name: 'Daily compliance',
        report_type: 'compliance_summary',
        frequency: 'daily',
        timezone: 'Europe/Berlin',
        recipients: ['boss@example.test', 'ops@example.test'],
        is_enabled: true,
        last_sent_at: null,
        next_run_at: expect.any(String),
        created_by: editor.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const next = new Date(res.body.next_run_at);
      expect(next.getTime()).toBeGreaterThan(Date.now());
      expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
      const berlinHour = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }).format(next);
      expect(berlinHour).toBe('08:00');
      expect((await t.http.get(`${base(space)}/${res.body.id}`).set(bearer(viewer))).body).toEqual(res.body);

      const weekly = await createReport(space, { frequency: 'weekly' });
      expect(new Date(weekly.next_run_at as string).getUTCDay()).toBe(1);
      expect(new Date(weekly.next_run_at as string).getUTCHours()).toBe(8);
      expect(weekly.timezone).toBe('UTC');
      const monthly = await createReport(space, { frequency: 'monthly', timezone: 'utc' });
      expect(new Date(monthly.next_run_at as string).getUTCDate()).toBe(1);
      expect(monthly.timezone).toBe('UTC');
    });

    it('validates report_type, frequency, recipients and time zone with 422', async () => {
      const valid = {
        name: 'x',
        report_type: 'risk_register',
        frequency: 'daily',
        recipients: ['a@example.test'],
      };
      for (const [field, value] of [
        ['report_type', 'gossip'],
        ['frequency', 'hourly'],
        ['recipients', ['not-an-email']],
        ['recipients', []],
        ['recipients', 'a@example.test'],
        ['timezone', 'Mars/Olympus'],
        ['is_enabled', 'sometimes'],
      ] as const) {
        const res = await t.http
          .post(base(space))
          .set(bearer(editor))
          .send({ ...valid, [field]: value });
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual([field]);
      }
      const report = await createReport(space);
      const bad = await t.http
        .patch(`${base(space)}/${report.id}`)
        .set(bearer(editor))
        .send({ timezone: 'Nowhere/City' });
      expectProblem(bad, 422, /Nowhere\/City/);
      expectProblem(
        await t.http
          .patch(`${base(space)}/${report.id}`)
          .set(bearer(editor))
          .send({ recipients: ['x'] }),
        422,
      );
      expectProblem(await t.http.get(`${base(space)}?limit=500`).set(bearer(viewer)), 422);
    });

    it('updates, recomputes next_run_at, disables, lists and deletes', async () => {
      const s = await newSpace();
      const report = await createReport(s, { frequency: 'daily' });
      const tokyo = await t.http
        .patch(`${base(s)}/${report.id}`)
        .set(bearer(editor))
        .send({ timezone: 'Asia/Tokyo', name: 'Tokyo' });
      expect(tokyo.status).toBe(200);
      expect(new Date(tokyo.body.next_run_at).getUTCHours()).toBe(23);
      expect(tokyo.body.name).toBe('Tokyo');
      const off = await t.http
        .patch(`${base(s)}/${report.id}`)
        .set(bearer(editor))
        .send({ is_enabled: false });
      expect(off.body).toEqual(expect.objectContaining({ is_enabled: false, next_run_at: null }));
      const on = await t.http
        .patch(`${base(s)}/${report.id}`)
        .set(bearer(editor))
        .send({ is_enabled: true });
      expect(on.body.next_run_at).toEqual(expect.any(String));
      await createReport(s, { name: 'Second' });
      const list = await t.http.get(base(s)).set(bearer(viewer));
      expect(list.body.total).toBe(2);
      expect(list.body.items.map((r: { name: string }) => r.name)).toEqual(['Second', 'Tokyo']);
      await t.http
        .delete(`${base(s)}/${report.id}`)
        .set(bearer(editor))
        .expect(204);
      expectProblem(await t.http.get(`${base(s)}/${report.id}`).set(bearer(viewer)), 404);
      expectProblem(await t.http.get(`${base(s)}/${report.id}/preview`).set(bearer(viewer)), 404);
      expectProblem(await t.http.post(`${base(s)}/${report.id}/send`).set(bearer(editor)), 404);
    });

    it('enforces roles', async () => {
      const report = await createReport(space);
      const body = {
        name: 'x',
        report_type: 'risk_register',
        frequency: 'daily',
        recipients: ['a@example.test'],
      };
      expectProblem(await t.http.post(base(space)).set(bearer(viewer)).send(body), 403);
      expectProblem(
        await t.http
          .patch(`${base(space)}/${report.id}`)
          .set(bearer(viewer))
          .send({ name: 'y' }),
        403,
      );
      expectProblem(await t.http.delete(`${base(space)}/${report.id}`).set(bearer(viewer)), 403);
      expectProblem(await t.http.post(`${base(space)}/${report.id}/send`).set(bearer(viewer)), 403);
      expect((await t.http.get(`${base(space)}/${report.id}/preview`).set(bearer(viewer))).status).toBe(200);
      expectProblem(await t.http.get(base(space)).set(bearer(outsider)), 404);
    });
  });

  describe('content', () => {
    let s: TestSpace;
    beforeAll(async () => {
      s = await newSpace();
      await createProduct(t.http, editor, s, {
        name: '<script>alert("x")</script>',
        owner_ids: [editor.id],
        tags: ['pii'],
        product_type: 'dashboard',
      });
      const plain = await createProduct(t.http, editor, s, { name: 'plain' });
      const policy = await t.http.post(`${API}/spaces/${s.slug}/policies`).set(bearer(editor)).send({
        name: 'Owners <b>',
        policy_type: 'ownership',
        rule_expression: 'size(product.owners) > 0',
        severity: 'high',
      });
      expect(policy.status).toBe(201);
      await t.http.post(`${API}/spaces/${s.slug}/policies/evaluate-all`).set(bearer(editor)).expect(200);
      await t.http
        .post(`${API}/catalog/spaces/${s.slug}/risk-register`)
        .set(bearer(editor))
        .send({ title: 'Leak & <loss>', category: 'privacy', likelihood: 'likely', impact: 'severe' })
        .expect(201);
      await t.http
        .post(`${API}/spaces/${s.slug}/alerts`)
        .set(bearer(editor))
        .send({ product_id: plain.id, alert_type: 'anomaly', severity: 'critical', message: 'spike' })
        .expect(201);
    });

    const preview = async (reportType: string) => {
      const report = await createReport(s, { report_type: reportType, name: `R ${reportType}` });
      const res = await t.http.get(`${base(s)}/${report.id}/preview`).set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        subject: expect.stringContaining(`R ${reportType}`),
        generated_at: expect.any(String),
        text: expect.any(String),
        html: expect.stringMatching(/^<!doctype html>/),
        data: expect.any(Object),
      });
      expect(res.body.html).not.toMatch(/<script>|<b>|<loss>/);
      return res.body as { subject: string; text: string; html: string; data: Record<string, unknown> };
    };

    it('builds each of the six report types from real data, escaping user values in HTML', async () => {
      const inventory = await preview('catalog_inventory');
      expect(inventory.data).toEqual(
        expect.objectContaining({
          total_products: 2,
          without_owner: 1,
          by_type: { dashboard: 1, dataset: 1 },
        }),
      );
      expect(inventory.text).toContain('<script>alert("x")</script>');
      expect(inventory.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');

      const compliance = await preview('compliance_summary');
      expect(compliance.data).toEqual(
        expect.objectContaining({ total_products: 2, non_compliant_products: 1, compliance_rate: 50 }),
      );
      expect(compliance.html).toContain('Owners &lt;b&gt;');

      const violations = await preview('policy_violations');
      expect((violations.data.violations as { product_name: string }[]).map((v) => v.product_name)).toEqual([
        'plain',
      ]);

      const risks = await preview('risk_register');
      expect(risks.data).toEqual(
        expect.objectContaining({ by_tier: { critical: 1, high: 0, medium: 0, low: 0 } }),
      );
      expect(risks.html).toContain('Leak &amp; &lt;loss&gt;');

      const incidents = await preview('incident_digest');
      expect(incidents.data.incidents as { status: string; severity: string }[]).toEqual([
        expect.objectContaining({ status: 'open', severity: 'critical' }),
      ]);

      const quality = await preview('quality_overview');
      expect(quality.data).toEqual(
        expect.objectContaining({ open_alerts_by_severity: { critical: 1, high: 0, medium: 0, low: 0 } }),
      );
    });

    it('previews without sending and sends HTML, text and CSV to every recipient through SMTP', async () => {
      const report = await createReport(s, {
        name: 'Inventory mail',
        recipients: ['first@example.test', 'second@example.test'],
      });
      const mailsBefore = await dbQuery(`SELECT 1 FROM mail_outbox WHERE subject LIKE 'Inventory mail%'`);
      await t.http
        .get(`${base(s)}/${report.id}/preview`)
        .set(bearer(viewer))
        .expect(200);
      await t.app.get(MailerService).flush();
      expect(await dbQuery(`SELECT 1 FROM mail_outbox WHERE subject LIKE 'Inventory mail%'`)).toEqual(
        mailsBefore,
      );

      const sent = await t.http.post(`${base(s)}/${report.id}/send`).set(bearer(editor));
      expect(sent.status).toBe(200);
      expect(sent.body).toEqual({
        sent_to: ['first@example.test', 'second@example.test'],
        generated_at: expect.any(String),
      });
      await t.app.get(MailerService).flush();
      for (const to of ['first@example.test', 'second@example.test']) {
        const mail = await smtp.waitFor((m) => m.to.includes(to) && m.subject.startsWith('Inventory mail'));
        expect(mail.text).toContain('Catalog inventory');
        expect(mail.html).toContain('&lt;script&gt;');
        expect(mail.html).not.toContain('<script>');
        expect(mail.attachments).toHaveLength(1);
        const [csv] = mail.attachments;
        expect(csv.filename).toMatch(/^catalog_inventory-\d{4}-\d{2}-\d{2}\.csv$/);
        expect(csv.contentType).toBe('text/csv');
        const lines = csv.content.toString('utf8').trim().split('\r\n');
        expect(lines[0]).toBe('Product,Type,Domain,Criticality,Sensitivity,Maintenance,Owners,Tags,Created');
        expect(lines).toHaveLength(3);
        expect(lines[1]).toContain(`"<script>alert(""x"")</script>",dashboard,`);
        expect(lines[1]).toContain(editor.email);
      }
      const after = await t.http.get(`${base(s)}/${report.id}`).set(bearer(viewer));
      expect(after.body.last_sent_at).toBe(sent.body.generated_at);
    });
  });
});
