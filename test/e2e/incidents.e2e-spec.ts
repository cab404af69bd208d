import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { MailerService } from '../../src/platform/mail/mailer.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
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
import { startWebhookReceiver } from '../support/webhook-receiver';

const API = '/api/v1.0';

interface Product {
  id: string;
  name: string;
}

describe('alerts and incidents', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url, ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    [admin, editor, viewer] = await Promise.all([
      createUser(t.http, { first_name: 'Ada' }),
      createUser(t.http, { first_name: 'Ed' }),
      createUser(t.http, { first_name: 'Vi' }),
    ]);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function newSpace(): Promise<TestSpace> {
    const space = await createSpace(t.http, admin);
    await addMember(t.http, admin, space, editor, 'editor');
    await addMember(t.http, admin, space, viewer, 'viewer');
    return space;
  }

  async function product(
    space: TestSpace,
    name: string,
    fields: Record<string, unknown> = {},
  ): Promise<Product> {
    return createProduct(t.http, editor, space, { name, ...fields });
  }

  async function edge(space: TestSpace, upstream: Product, downstream: Product): Promise<void> {
    await t.http
      .post(`${API}/catalog/spaces/${space.slug}/lineage`)
      .set(bearer(editor))
      .send({ upstream_id: upstream.id, downstream_id: downstream.id })
      .expect(201);
  }

  async function pushAlert(space: TestSpace, p: Product, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(`${API}/spaces/${space.slug}/alerts`)
      .set(bearer(editor))
      .send({
        product_id: p.id,
        alert_type: 'anomaly',
        severity: 'medium',
        message: `Odd values in ${p.name}`,
        ...fields,
      });
    if (res.status !== 201) throw new Error(`push alert: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; incident_id: string; status: string };
  }

  const incidents = (space: TestSpace) => `${API}/spaces/${space.slug}/incidents`;

  async function incident(space: TestSpace, id: string) {
    const res = await t.http.get(`${incidents(space)}/${id}`).set(bearer(viewer));
    expect(res.status).toBe(200);
    return res.body;
  }

  async function notificationsOf(user: TestUser, type: string) {
    const res = await t.http.get(`${API}/notifications?type=${type}&size=100`).set(bearer(user));
    return res.body.items as { title: string; message: string; data: Record<string, unknown> }[];
  }

  describe('correlation', () => {
    it('opens an incident titled after the alert type and product, and tells the product owners', async () => {
      const space = await newSpace();
      const orders = await product(space, 'orders', { owner_ids: [viewer.id], steward_ids: [admin.id] });
      const alert = await pushAlert(space, orders, { alert_type: 'freshness_breach', severity: 'high' });
      expect(alert).toEqual(
        expect.objectContaining({
          status: 'open',
          alert_type: 'freshness_breach',
          severity: 'high',
          product_id: orders.id,
          incident_id: expect.any(String),
          metadata: {},
          check_id: null,
        }),
      );
      const body = await incident(space, alert.incident_id);
      expect(body).toEqual(
        expect.objectContaining({
          id: alert.incident_id,
          space_id: space.id,
          title: 'Freshness breach on orders',
          status: 'open',
          severity: 'high',
          alert_count: 1,
          root_cause: null,
          root_product_id: orders.id,
          blast_radius_snapshot: [],
          blast_radius: [],
          tickets: [],
          resolved_at: null,
        }),
      );
      expect(body.alerts.map((a: { id: string }) => a.id)).toEqual([alert.id]);
      for (const user of [viewer, admin]) {
        const told = await notificationsOf(user, 'quality_alert');
        expect(told.find((n) => n.data.alert_id === alert.id)?.data).toEqual({
          incident_id: alert.incident_id,
          alert_id: alert.id,
          product_id: orders.id,
          severity: 'high',
          space_id: space.id,
        });
      }
      const events = await dbQuery<{ type: string }>(
        `SELECT type FROM outbox_events WHERE space_id = $1 AND type IN ('alert.created', 'incident.created') ORDER BY type`,
        [space.id],
      );
      expect(events.map((e) => e.type)).toEqual(['alert.created', 'incident.created']);
    });

    it('joins alerts on products linked by lineage at any depth; highest severity, most upstream root, refreshed blast radius', async () => {
      const space = await newSpace();
      const raw = await product(space, 'raw_orders');
      const staged = await product(space, 'staged_orders');
      const mart = await product(space, 'orders_mart');
      const dash = await product(space, 'revenue_dashboard');
      const other = await product(space, 'unrelated');
      await edge(space, raw, staged);
      await edge(space, staged, mart);
      await edge(space, mart, dash);

      const first = await pushAlert(space, mart, { severity: 'medium' });
      let body = await incident(space, first.incident_id);
      expect(body.root_product_id).toBe(mart.id);
      expect(body.blast_radius_snapshot).toEqual(['revenue_dashboard']);

      // Two hops upstream: it joins, the root moves up and the blast radius grows.
      const second = await pushAlert(space, raw, { severity: 'high', alert_type: 'schema_change' });
      expect(second.incident_id).toBe(first.incident_id);
      body = await incident(space, first.incident_id);
      expect(body).toEqual(
        expect.objectContaining({
          severity: 'high',
          alert_count: 2,
          root_product_id: raw.id,
          blast_radius_snapshot: ['orders_mart', 'revenue_dashboard', 'staged_orders'],
          blast_radius: [
            { id: mart.id, name: 'orders_mart' },
            { id: dash.id, name: 'revenue_dashboard' },
            { id: staged.id, name: 'staged_orders' },
          ],
        }),
      );

      // Downstream joins too; a lower severity keeps the highest.
      const third = await pushAlert(space, dash, { severity: 'low' });
      expect(third.incident_id).toBe(first.incident_id);
      // The same product again joins as well.
      const fourth = await pushAlert(space, mart, { severity: 'critical' });
      expect(fourth.incident_id).toBe(first.incident_id);
      body = await incident(space, first.incident_id);
      expect(body).toEqual(
        expect.objectContaining({ severity: 'critical', alert_count: 4, root_product_id: raw.id }),
      );

      // Unconnected: a new incident.
      const lone = await pushAlert(space, other);
      expect(lone.incident_id).not.toBe(first.incident_id);

      // A product linked after the fact is picked up when the next alert joins.
      const extra = await product(space, 'finance_report');
      await edge(space, dash, extra);
      await pushAlert(space, staged);
      body = await incident(space, first.incident_id);
      expect(body.blast_radius_snapshot).toEqual([
        'finance_report',
        'orders_mart',
        'revenue_dashboard',
        'staged_orders',
      ]);
      const updates = await dbQuery<{ payload: { changed: string[] } }>(
        `SELECT payload FROM outbox_events WHERE type = 'incident.updated' AND payload->>'incident_id' = $1
          ORDER BY occurred_at`,
        [first.incident_id],
      );
      expect(updates[0].payload.changed).toEqual(
        expect.arrayContaining(['alert_count', 'severity', 'root_product_id', 'blast_radius_snapshot']),
      );
    });

    it('does not join products that only share an ancestor', async () => {
      const space = await newSpace();
      const source = await product(space, 'source');
      const left = await product(space, 'left');
      const right = await product(space, 'right');
      await edge(space, source, left);
      await edge(space, source, right);
      const a = await pushAlert(space, left);
      const b = await pushAlert(space, right);
      expect(b.incident_id).not.toBe(a.incident_id);
      // The shared ancestor is connected to both: it joins the most recent one.
      const c = await pushAlert(space, source);
      expect(c.incident_id).toBe(b.incident_id);
    });

    it('joins neither resolved incidents nor ones opened more than six hours ago', async () => {
      const space = await newSpace();
      const p = await product(space, 'events');
      const first = await pushAlert(space, p);
      await dbQuery(
        `UPDATE quality_incidents SET created_at = now() - interval '6 hours 1 minute' WHERE id = $1`,
        [first.incident_id],
      );
      const second = await pushAlert(space, p);
      expect(second.incident_id).not.toBe(first.incident_id);

      // Investigating still accepts alerts.
      await t.http
        .patch(`${incidents(space)}/${second.incident_id}`)
        .set(bearer(editor))
        .send({ status: 'investigating' })
        .expect(200);
      expect((await pushAlert(space, p)).incident_id).toBe(second.incident_id);

      await t.http
        .post(`${incidents(space)}/${second.incident_id}/resolve`)
        .set(bearer(editor))
        .expect(200);
      const third = await pushAlert(space, p);
      expect([first.incident_id, second.incident_id]).not.toContain(third.incident_id);
    });

    it('opens one incident for a cluster even when its alerts arrive at the same moment', async () => {
      for (let round = 0; round < 3; round++) {
        const space = await newSpace();
        const chain: Product[] = [];
        for (let i = 0; i < 4; i++) chain.push(await product(space, `p${i}`));
        for (let i = 1; i < chain.length; i++) await edge(space, chain[i - 1], chain[i]);
        const alerts = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            pushAlert(space, chain[i % chain.length], { severity: 'low' }),
          ),
        );
        expect(new Set(alerts.map((a) => a.incident_id)).size).toBe(1);
        const list = await t.http.get(incidents(space)).set(bearer(viewer));
        expect(list.body.total).toBe(1);
        expect(list.body.items[0]).toEqual(
          expect.objectContaining({ alert_count: 12, root_product_id: chain[0].id }),
        );
      }
    });
    it('also holds when a related set is too large to lock product by product (the space is locked instead)', async () => {
      const space = await newSpace();
      const hub = await product(space, 'hub');
      const leaves: Product[] = [];
      for (let i = 0; i < 130; i++) {
        const leaf = await product(space, `leaf${String(i).padStart(3, '0')}`);
        await edge(space, hub, leaf);
        leaves.push(leaf);
      }
      // The hub relates to 131 products: its alerts lock the whole space.
      const alerts = await Promise.all(Array.from({ length: 10 }, () => pushAlert(space, hub)));
      expect(new Set(alerts.map((a) => a.incident_id)).size).toBe(1);
      // A leaf relates only to itself and the hub: it joins too.
      expect((await pushAlert(space, leaves[7])).incident_id).toBe(alerts[0].incident_id);
      const body = await incident(space, alerts[0].incident_id);
      expect(body).toEqual(expect.objectContaining({ alert_count: 11, root_product_id: hub.id }));
      expect(body.blast_radius_snapshot).toHaveLength(130);
    });
  });

  describe('alerts', () => {
    it('validates pushed alerts and needs edit access', async () => {
      const space = await newSpace();
      const other = await newSpace();
      const foreign = await product(other, 'foreign');
      const p = await product(space, 'mine');
      const wrong = await t.http
        .post(`${API}/spaces/${space.slug}/alerts`)
        .set(bearer(editor))
        .send({ product_id: foreign.id, alert_type: 'anomaly', severity: 'low', message: 'x' });
      expectProblem(wrong, 422);
      expect(invalidFields(wrong)).toEqual(['product_id']);
      const bad = await t.http
        .post(`${API}/spaces/${space.slug}/alerts`)
        .set(bearer(editor))
        .send({ product_id: p.id, alert_type: 'weird', severity: 'urgent', message: '', extra: true });
      expect(invalidFields(bad).sort()).toEqual(['alert_type', 'extra', 'message', 'severity']);
      expectProblem(
        await t.http
          .post(`${API}/spaces/${space.slug}/alerts`)
          .set(bearer(viewer))
          .send({ product_id: p.id, alert_type: 'anomaly', severity: 'low', message: 'x' }),
        403,
      );
      const stranger = await createUser(t.http);
      expectProblem(await t.http.get(`${API}/spaces/${space.slug}/alerts`).set(bearer(stranger)), 404);
    });

    it('lists with filters and moves open -> acknowledged -> resolved, refusing other moves', async () => {
      const space = await newSpace();
      const a = await product(space, 'a');
      const b = await product(space, 'b');
      const one = await pushAlert(space, a, { severity: 'high', metadata: { detector: 'z-score' } });
      const two = await pushAlert(space, b, { severity: 'low', alert_type: 'trend' });
      const base = `${API}/spaces/${space.slug}/alerts`;

      const all = await t.http.get(base).set(bearer(viewer));
      expect(all.body.total).toBe(2);
      expect(all.body.items.map((x: { id: string }) => x.id)).toEqual([two.id, one.id]);
      const high = await t.http.get(`${base}?severity=high`).set(bearer(viewer));
      expect(high.body.items.map((x: { id: string }) => x.id)).toEqual([one.id]);
      const trend = await t.http.get(`${base}?alert_type=trend&product_id=${b.id}`).set(bearer(viewer));
      expect(trend.body.items.map((x: { id: string }) => x.id)).toEqual([two.id]);
      const byIncident = await t.http.get(`${base}?incident_id=${one.incident_id}`).set(bearer(viewer));
      expect(byIncident.body.items.map((x: { id: string }) => x.id)).toEqual([one.id]);
      expectProblem(await t.http.get(`${base}?status=gone`).set(bearer(viewer)), 422);

      const got = await t.http.get(`${base}/${one.id}`).set(bearer(viewer));
      expect(got.body.metadata).toEqual({ detector: 'z-score' });
      expectProblem(
        await t.http.get(`${base}/00000000-0000-4000-8000-000000000000`).set(bearer(viewer)),
        404,
      );

      expectProblem(await t.http.post(`${base}/${one.id}/acknowledge`).set(bearer(viewer)), 403);
      const acked = await t.http.post(`${base}/${one.id}/acknowledge`).set(bearer(editor));
      expect(acked.status).toBe(200);
      expect(acked.body).toEqual(
        expect.objectContaining({ status: 'acknowledged', acknowledged_at: expect.any(String) }),
      );
      expectProblem(await t.http.post(`${base}/${one.id}/acknowledge`).set(bearer(editor)), 409);
      const resolved = await t.http.post(`${base}/${one.id}/resolve`).set(bearer(editor));
      expect(resolved.body).toEqual(
        expect.objectContaining({ status: 'resolved', resolved_at: expect.any(String) }),
      );
      expectProblem(await t.http.post(`${base}/${one.id}/resolve`).set(bearer(editor)), 409);
      expectProblem(await t.http.post(`${base}/${one.id}/acknowledge`).set(bearer(editor)), 409);
      // Straight from open to resolved.
      expect((await t.http.post(`${base}/${two.id}/resolve`).set(bearer(editor))).body.status).toBe(
        'resolved',
      );

      const open = await t.http.get(`${base}?status=resolved`).set(bearer(viewer));
      expect(open.body.total).toBe(2);
      const events = await dbQuery(
        `SELECT 1 FROM outbox_events WHERE type = 'alert.resolved' AND space_id = $1`,
        [space.id],
      );
      expect(events).toHaveLength(2);
    });

    it('delivers alert and incident events to subscribed webhooks', async () => {
      const receiver = await startWebhookReceiver();
      try {
        const space = await newSpace();
        const hook = await t.http
          .post(`${API}/spaces/${space.slug}/webhooks`)
          .set(bearer(admin))
          .send({ url: receiver.url, event_types: ['alert.created', 'incident.created'] });
        expect(hook.status).toBe(201);
        const p = await product(space, 'hooked');
        const alert = await pushAlert(space, p);
        await t.app.get(OutboxDispatcher).drain();
        await t.app.get(JobRunner).drain();
        const requests = await receiver.waitForCount(2);
        const bodies = requests.map(
          (r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> },
        );
        expect(bodies.map((b) => b.type).sort()).toEqual(['alert.created', 'incident.created']);
        expect(bodies.find((b) => b.type === 'alert.created')!.data).toEqual(
          expect.objectContaining({ alert_id: alert.id, incident_id: alert.incident_id, space_id: space.id }),
        );
      } finally {
        await receiver.close();
      }
    });
  });

  describe('incident endpoints', () => {
    it('answers 403 naming the feature on every incident endpoint when quality.incidents is off', async () => {
      const space = await newSpace();
      const p = await product(space, 'guarded');
      const alert = await pushAlert(space, p);
      await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(admin))
        .send({ 'quality.incidents': false })
        .expect(200);
      const base = `${incidents(space)}/${alert.incident_id}`;
      const calls = [
        t.http.get(incidents(space)).set(bearer(viewer)),
        t.http.get(base).set(bearer(viewer)),
        t.http.get(`${base}/timeline`).set(bearer(viewer)),
        t.http.patch(base).set(bearer(editor)).send({ root_cause: 'x' }),
        t.http.post(`${base}/resolve`).set(bearer(editor)),
        t.http.post(`${base}/notify-downstream`).set(bearer(editor)),
        t.http.post(`${base}/link-ticket`).set(bearer(editor)).send({ ticket_id: alert.id }),
      ];
      for (const res of await Promise.all(calls)) expectProblem(res, 403, /quality\.incidents/);
      // Alerts keep flowing (and correlating) meanwhile.
      expect((await pushAlert(space, p)).incident_id).toBe(alert.incident_id);
      await t.http
        .patch(`${API}/spaces/${space.slug}/features`)
        .set(bearer(admin))
        .send({ 'quality.incidents': true })
        .expect(200);
      expect((await t.http.get(base).set(bearer(viewer))).body.alert_count).toBe(2);
    });

    it('lists by status, newest first, with skip and limit (default 50, max 200)', async () => {
      const space = await newSpace();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await pushAlert(space, await product(space, `l${i}`))).incident_id);
      await t.http
        .patch(`${incidents(space)}/${ids[0]}`)
        .set(bearer(editor))
        .send({ status: 'investigating' });
      await t.http
        .post(`${incidents(space)}/${ids[1]}/resolve`)
        .set(bearer(editor))
        .expect(200);

      const all = await t.http.get(incidents(space)).set(bearer(viewer));
      expect(all.body.total).toBe(3);
      expect(all.body.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse());
      expect(all.body.items[0]).toEqual({
        id: ids[2],
        space_id: space.id,
        title: 'Anomaly on l2',
        status: 'open',
        severity: 'medium',
        alert_count: 1,
        root_cause: null,
        root_product_id: expect.any(String),
        blast_radius_snapshot: [],
        description: 'Odd values in l2',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        resolved_at: null,
      });
      for (const [status, expected] of [
        ['open', [ids[2]]],
        ['investigating', [ids[0]]],
        ['resolved', [ids[1]]],
      ] as const) {
        const res = await t.http.get(`${incidents(space)}?status=${status}`).set(bearer(viewer));
        expect(res.body.items.map((i: { id: string }) => i.id)).toEqual(expected);
        expect(res.body.total).toBe(1);
      }
      const page = await t.http.get(`${incidents(space)}?skip=1&limit=1`).set(bearer(viewer));
      expect(page.body).toEqual({ items: [expect.objectContaining({ id: ids[1] })], total: 3 });
      expect((await t.http.get(`${incidents(space)}?limit=200`).set(bearer(viewer))).status).toBe(200);
      expectProblem(await t.http.get(`${incidents(space)}?limit=201`).set(bearer(viewer)), 422);
      expectProblem(await t.http.get(`${incidents(space)}?status=closed`).set(bearer(viewer)), 422);
      expectProblem(await t.http.get(`${incidents(space)}?skip=-1`).set(bearer(viewer)), 422);
      expectProblem(await t.http.get(`${incidents(space)}/not-a-uuid`).set(bearer(viewer)), 422);
      expectProblem(
        await t.http.get(`${incidents(space)}/00000000-0000-4000-8000-000000000000`).set(bearer(viewer)),
        404,
      );
      // An incident of another space is missing here.
      const other = await newSpace();
      expectProblem(await t.http.get(`${incidents(other)}/${ids[0]}`).set(bearer(viewer)), 404);
    });

    it('updates root cause, description, severity, root product and status; reopening clears resolved_at', async () => {
      const space = await newSpace();
      const up = await product(space, 'up');
      const down = await product(space, 'down');
      const leaf = await product(space, 'leaf');
      await edge(space, up, down);
      await edge(space, down, leaf);
      const alert = await pushAlert(space, up);
      const url = `${incidents(space)}/${alert.incident_id}`;

      const patched = await t.http.patch(url).set(bearer(editor)).send({
        root_cause: 'A schema migration dropped a column.',
        description: 'Orders pipeline broken',
        severity: 'critical',
        root_product_id: down.id,
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual(
        expect.objectContaining({
          root_cause: 'A schema migration dropped a column.',
          description: 'Orders pipeline broken',
          severity: 'critical',
          root_product_id: down.id,
          blast_radius_snapshot: ['leaf'],
          blast_radius: [{ id: leaf.id, name: 'leaf' }],
          alerts: [expect.objectContaining({ id: alert.id })],
        }),
      );
      // A pinned root stays when an alert on a more upstream product joins.
      await pushAlert(space, up, { severity: 'low' });
      expect((await incident(space, alert.incident_id)).root_product_id).toBe(down.id);
      // Unpinned, correlation takes it back.
      const unpinned = await t.http.patch(url).set(bearer(editor)).send({ root_product_id: null });
      expect(unpinned.body.root_product_id).toBe(up.id);
      expect(unpinned.body.blast_radius_snapshot).toEqual(['down', 'leaf']);

      const resolved = await t.http.patch(url).set(bearer(editor)).send({ status: 'resolved' });
      expect(resolved.body.status).toBe('resolved');
      expect(resolved.body.resolved_at).toEqual(expect.stringMatching(/Z$/));
      expect(resolved.body.alerts.every((a: { status: string }) => a.status === 'resolved')).toBe(true);
      const reopened = await t.http.patch(url).set(bearer(editor)).send({ status: 'investigating' });
      expect(reopened.body).toEqual(expect.objectContaining({ status: 'investigating', resolved_at: null }));
      await t.http.patch(url).set(bearer(editor)).send({ status: 'open' }).expect(200);

      const other = await newSpace();
      const foreign = await product(other, 'foreign');
      const wrong = await t.http.patch(url).set(bearer(editor)).send({ root_product_id: foreign.id });
      expectProblem(wrong, 422);
      expect(invalidFields(wrong)).toEqual(['root_product_id']);
      expectProblem(await t.http.patch(url).set(bearer(editor)).send({ status: 'closed' }), 422);
      expectProblem(await t.http.patch(url).set(bearer(editor)).send({ title: 'no' }), 422);
      expectProblem(await t.http.patch(url).set(bearer(viewer)).send({ root_cause: 'x' }), 403);

      const events = await dbQuery<{ type: string; payload: { changed?: string[] } }>(
        `SELECT type, payload FROM outbox_events WHERE payload->>'incident_id' = $1 AND type LIKE 'incident.%'
          ORDER BY occurred_at`,
        [alert.incident_id],
      );
      // Events of one transaction share a timestamp, so compare them as a set of counts.
      const counts = events.reduce<Record<string, number>>(
        (acc, e) => ({ ...acc, [e.type]: (acc[e.type] ?? 0) + 1 }),
        {},
      );
      // Updated: the PATCH of root cause etc., the low alert joining, unpinning, -> resolved, -> investigating, -> open.
      expect(counts).toEqual({ 'incident.created': 1, 'incident.updated': 6, 'incident.resolved': 1 });
      expect(events[1].payload.changed).toEqual(
        expect.arrayContaining([
          'root_cause',
          'description',
          'severity',
          'root_product_id',
          'blast_radius_snapshot',
        ]),
      );
    });

    it('keeps a chronological timeline of alerts and status changes', async () => {
      const space = await newSpace();
      const p = await product(space, 'timed');
      const first = await pushAlert(space, p, { alert_type: 'trend', severity: 'low' });
      const url = `${incidents(space)}/${first.incident_id}`;
      await t.http.patch(url).set(bearer(editor)).send({ status: 'investigating' }).expect(200);
      const second = await pushAlert(space, p, { alert_type: 'anomaly', severity: 'high' });
      await t.http.post(`${url}/resolve`).set(bearer(editor)).expect(200);
      await t.http.patch(url).set(bearer(editor)).send({ status: 'open' }).expect(200);

      const res = await t.http.get(`${url}/timeline`).set(bearer(viewer));
      expect(res.status).toBe(200);
      expect(
        res.body.map((e: Record<string, unknown>) => [
          e.entry_type,
          e.alert_id ?? null,
          e.from_status,
          e.to_status,
        ]),
      ).toEqual([
        ['alert', first.id, null, null],
        ['status_change', null, 'open', 'investigating'],
        ['alert', second.id, null, null],
        ['status_change', null, 'investigating', 'resolved'],
        ['status_change', null, 'resolved', 'open'],
      ]);
      expect(res.body[0]).toEqual({
        entry_type: 'alert',
        added_at: expect.stringMatching(/Z$/),
        alert_id: first.id,
        alert_type: 'trend',
        severity: 'low',
        product_id: p.id,
        message: 'Odd values in timed',
        from_status: null,
        to_status: null,
        changed_by: null,
      });
      expect(res.body[1].changed_by).toBe(editor.id);
      const times = res.body.map((e: { added_at: string }) => Date.parse(e.added_at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    });

    it('resolves the open and acknowledged alerts and tells their owners; resolving again changes nothing', async () => {
      const space = await newSpace();
      const owner = await createUser(t.http, { first_name: 'Owen' });
      await addMember(t.http, admin, space, owner, 'viewer');
      const p = await product(space, 'resolvable', { owner_ids: [owner.id] });
      const a1 = await pushAlert(space, p);
      const a2 = await pushAlert(space, p);
      const a3 = await pushAlert(space, p);
      await t.http
        .post(`${API}/spaces/${space.slug}/alerts/${a2.id}/acknowledge`)
        .set(bearer(editor))
        .expect(200);
      await t.http
        .post(`${API}/spaces/${space.slug}/alerts/${a3.id}/resolve`)
        .set(bearer(editor))
        .expect(200);
      const url = `${incidents(space)}/${a1.incident_id}`;
      expectProblem(await t.http.post(`${url}/resolve`).set(bearer(viewer)), 403);
      const res = await t.http.post(`${url}/resolve`).set(bearer(editor));
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('resolved');
      expect(res.body.alerts.map((a: { status: string }) => a.status)).toEqual([
        'resolved',
        'resolved',
        'resolved',
      ]);
      const resolvedAt = res.body.resolved_at;
      const again = await t.http.post(`${url}/resolve`).set(bearer(editor));
      expect(again.status).toBe(200);
      expect(again.body.resolved_at).toBe(resolvedAt);

      const told = (await notificationsOf(owner, 'quality_resolved')).filter(
        (n) => n.data.incident_id === a1.incident_id,
      );
      expect(told).toHaveLength(1);
      expect(told[0].title).toBe('Resolved: Anomaly on resolvable');
      const alertEvents = await dbQuery<{ id: string }>(
        `SELECT payload->>'alert_id' AS id FROM outbox_events WHERE type = 'alert.resolved' AND space_id = $1`,
        [space.id],
      );
      expect(alertEvents.map((e) => e.id).sort()).toEqual([a1.id, a2.id, a3.id].sort());
      const resolvedEvents = await dbQuery(
        `SELECT 1 FROM outbox_events WHERE type = 'incident.resolved' AND payload->>'incident_id' = $1`,
        [a1.incident_id],
      );
      expect(resolvedEvents).toHaveLength(1);
    });

    it('notifies every owner and steward of the blast radius once, in-platform and by email', async () => {
      const space = await newSpace();
      const [o1, o2, s1, outsider] = await Promise.all(
        ['Olga', 'Omar', 'Sam', 'Ulla'].map((first_name) => createUser(t.http, { first_name })),
      );
      for (const user of [o1, o2, s1, outsider]) await addMember(t.http, admin, space, user, 'viewer');
      const root = await product(space, 'ingest', { owner_ids: [outsider.id] });
      const d1 = await product(space, 'model', { owner_ids: [o1.id], steward_ids: [s1.id] });
      const d2 = await product(space, 'report', { owner_ids: [o1.id, o2.id] });
      const d3 = await product(space, 'archive');
      await edge(space, root, d1);
      await edge(space, d1, d2);
      await edge(space, root, d3);
      const alert = await pushAlert(space, root, {
        severity: 'critical',
        alert_type: 'quality_check_failed',
      });
      const url = `${incidents(space)}/${alert.incident_id}`;
      expectProblem(await t.http.post(`${url}/notify-downstream`).set(bearer(viewer)), 403);
      const res = await t.http.post(`${url}/notify-downstream`).set(bearer(editor));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ notified_users: 3, affected_products: 3 });

      for (const user of [o1, o2, s1]) {
        const told = (await notificationsOf(user, 'quality_alert')).filter(
          (n) => n.data.incident_id === alert.incident_id,
        );
        expect(told).toHaveLength(1);
        expect(told[0].title).toBe('Upstream incident: Quality check failed on ingest');
        const mail = await smtp.waitFor(
          (m) =>
            m.to.includes(user.email) && m.subject === 'Upstream incident: Quality check failed on ingest',
        );
        expect(mail.text).toContain('archive, model, report');
      }
      // The root's own owner heard of the alert itself, not of the downstream notice.
      const outsiderNotices = (await notificationsOf(outsider, 'quality_alert')).map((n) => n.title);
      expect(outsiderNotices).not.toContain('Upstream incident: Quality check failed on ingest');
      await t.app.get(MailerService).flush();
      expect(
        smtp.messages.filter((m) => m.to.includes(o1.email) && m.subject.startsWith('Upstream')),
      ).toHaveLength(1);

      // Resolving then tells the downstream owners too.
      await t.http.post(`${url}/resolve`).set(bearer(editor)).expect(200);
      expect(
        (await notificationsOf(o2, 'quality_resolved')).some((n) => n.data.incident_id === alert.incident_id),
      ).toBe(true);
    });

    it('answers zero when the blast radius is empty', async () => {
      const space = await newSpace();
      const alert = await pushAlert(space, await product(space, 'alone'));
      const res = await t.http
        .post(`${incidents(space)}/${alert.incident_id}/notify-downstream`)
        .set(bearer(editor));
      expect(res.body).toEqual({ notified_users: 0, affected_products: 0 });
    });

    it('links a ticket of the same space; the ticket shows the incident and the incident the ticket', async () => {
      const space = await newSpace();
      const alert = await pushAlert(space, await product(space, 'ticketed'));
      const ticket = await t.http.post(`${API}/issues/tickets`).set(bearer(editor)).send({
        space_id: space.id,
        title: 'Investigate ticketed',
        priority: 'high',
        assignee_id: viewer.id,
      });
      expect(ticket.status).toBe(201);
      const url = `${incidents(space)}/${alert.incident_id}/link-ticket`;
      const res = await t.http.post(url).set(bearer(editor)).send({ ticket_id: ticket.body.id });
      expect(res.status).toBe(200);
      expect(res.body.tickets).toEqual([
        {
          id: ticket.body.id,
          title: 'Investigate ticketed',
          status: 'open',
          priority: 'high',
          assignee_id: viewer.id,
          linked_at: expect.stringMatching(/Z$/),
        },
      ]);
      // Twice is once.
      expect(
        (await t.http.post(url).set(bearer(editor)).send({ ticket_id: ticket.body.id })).body.tickets,
      ).toHaveLength(1);
      const shown = await t.http.get(`${API}/issues/tickets/${ticket.body.id}`).set(bearer(viewer));
      expect(shown.body.incident_ids).toEqual([alert.incident_id]);
      expect((await incident(space, alert.incident_id)).tickets).toHaveLength(1);

      const other = await newSpace();
      const foreign = await t.http
        .post(`${API}/issues/tickets`)
        .set(bearer(editor))
        .send({ space_id: other.id, title: 'Elsewhere' });
      const wrong = await t.http.post(url).set(bearer(editor)).send({ ticket_id: foreign.body.id });
      expectProblem(wrong, 422);
      expect(invalidFields(wrong)).toEqual(['ticket_id']);
      expectProblem(await t.http.post(url).set(bearer(editor)).send({ ticket_id: 'x' }), 422);
      expectProblem(await t.http.post(url).set(bearer(viewer)).send({ ticket_id: ticket.body.id }), 403);
      // Deleting the ticket removes the link.
      await t.http.delete(`${API}/issues/tickets/${ticket.body.id}`).set(bearer(editor)).expect(204);
      expect((await incident(space, alert.incident_id)).tickets).toEqual([]);
    });
  });
});
