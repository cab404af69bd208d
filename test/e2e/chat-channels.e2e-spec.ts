import { DataSource } from 'typeorm';
import { ChatChannelsModule } from '../../src/modules/chat-channels/chat-channels.module';
import { Clock } from '../../src/platform/clock/clock.service';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import type { HostResolver } from '../../src/platform/outbound-http/host-resolver';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { ChatPayloadKind } from '../support/chat-payloads';
import { ChatReceiver, ReceivedChatMessage, startChatReceiver } from '../support/chat-receiver';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';
import {
  applyEvents,
  createApiKey,
  mapNamespaces,
  olEvent,
  postEvents,
  uniqueNamespace,
} from '../support/openlineage';
import { expectProblem, invalidFields } from '../support/problem';

const API = '/api/v1.0';
const KINDS: ChatPayloadKind[] = ['slack', 'teams', 'google_chat'];

interface Channel {
  id: string;
  name: string;
  kind: string;
  url_set: boolean;
  url_host: string;
  event_types: string[];
  min_severity: string;
  is_enabled: boolean;
  failing_since: string | null;
  created_at: string;
}

/** Every piece of text a payload carries, whatever its platform (to look for names and links). */
const textOf = (message: ReceivedChatMessage) => JSON.stringify(message.body);

describe('chat channels', () => {
  let t: TestApp;
  let admin: TestUser;
  let editor: TestUser;
  let space: TestSpace;
  const receivers: ChatReceiver[] = [];
  let clock: { now: number; advance(ms: number): void; restore(): void };

  beforeAll(async () => {
    t = await startApp({ env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } });
    admin = await createUser(t.http);
    editor = await createUser(t.http);
    space = await createSpace(t.http, admin, { name: 'Finance & <Ops>' });
    await addMember(t.http, admin, space, editor, 'editor');
  });
  beforeEach(() => {
    // The chat module's own clock, pinned an hour ahead of the wall clock: every message and retry it schedules
    // is due only when the test's clock (settle, chatJobsDueNow) says so, however slow the machine is.
    let now = Date.now() + 3_600_000;
    const spy = jest
      .spyOn(t.app.select(ChatChannelsModule).get(Clock, { strict: true }), 'now')
      .mockImplementation(() => now);
    clock = {
      get now() {
        return now;
      },
      advance: (ms) => void (now += ms),
      restore: () => spy.mockRestore(),
    };
  });
  afterEach(async () => {
    clock.restore();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(() => t.close());

  const base = (s: TestSpace = space) => `${API}/spaces/${s.slug}/chat-channels`;
  const db = () => t.app.get(DataSource);

  async function receiver(kind: ChatPayloadKind): Promise<ChatReceiver> {
    const r = await startChatReceiver(kind);
    receivers.push(r);
    return r;
  }

  async function createChannel(
    kind: ChatPayloadKind,
    url: string,
    fields: Record<string, unknown> = {},
    s: TestSpace = space,
  ): Promise<Channel> {
    const res = await t.http
      .post(base(s))
      .set(bearer(admin))
      .send({ name: `${kind} alerts`, kind, url, event_types: ['alert.raised'], ...fields });
    if (res.status !== 201) throw new Error(`create chat channel: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Channel;
  }

  /** Runs the outbox, then every job due by the pinned clock, until nothing is left. */
  async function settle(): Promise<void> {
    await t.app.get(OutboxDispatcher).drain();
    await db().query(
      `UPDATE jobs SET run_at = now() WHERE name = 'chat.deliver' AND status = 'pending' AND run_at <= $1`,
      [new Date(clock.now)],
    );
    await t.app.get(JobRunner).drain();
  }

  /** Makes every waiting chat message or retry due now, whatever its time on the pinned clock, then settles. */
  async function chatJobsDueNow(): Promise<void> {
    await db().query(`UPDATE jobs SET run_at = now() WHERE name = 'chat.deliver' AND status = 'pending'`);
    await settle();
  }

  /** How long after the pinned clock each waiting message or retry of the channel is due. */
  async function pendingChatJobDelays(channelId: string): Promise<number[]> {
    const rows = (await db().query(
      `SELECT j.run_at FROM jobs j JOIN chat_messages m ON m.id = (j.payload->>'message_id')::uuid
        WHERE j.name = 'chat.deliver' AND j.status = 'pending' AND m.channel_id = $1 ORDER BY j.run_at`,
      [channelId],
    )) as { run_at: Date }[];
    return rows.map((row) => new Date(row.run_at).getTime() - clock.now);
  }

  async function pushAlert(s: TestSpace, productId: string, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post(`${API}/spaces/${s.slug}/alerts`)
      .set(bearer(editor))
      .send({
        product_id: productId,
        alert_type: 'anomaly',
        severity: 'medium',
        message: 'Odd values',
        ...fields,
      });
    if (res.status !== 201) throw new Error(`push alert: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; incident_id: string };
  }

  async function freshSpace(): Promise<TestSpace> {
    const s = await createSpace(t.http, admin);
    await addMember(t.http, admin, s, editor, 'editor');
    return s;
  }

  describe('the routes', () => {
    it('creates, reads, lists, changes and deletes a channel, never answering its URL', async () => {
      const r = await receiver('slack');
      const created = await createChannel('slack', r.url, {
        event_types: ['incident.opened', 'alert.raised', 'incident.opened'],
        min_severity: 'high',
      });
      expect(created).toEqual({
        id: expect.any(String),
        name: 'slack alerts',
        kind: 'slack',
        url_set: true,
        url_host: '127.0.0.1',
        event_types: ['incident.opened', 'alert.raised'],
        min_severity: 'high',
        is_enabled: true,
        failing_since: null,
        created_at: expect.any(String),
      });
      expect(JSON.stringify(created)).not.toContain('secret-token');

      const got = await t.http.get(`${base()}/${created.id}`).set(bearer(admin));
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created);
      const list = await t.http.get(base()).set(bearer(admin));
      expect(list.status).toBe(200);
      expect(list.body.items.map((c: Channel) => c.id)).toContain(created.id);
      expect(JSON.stringify(list.body)).not.toContain('secret-token');

      const other = await receiver('slack');
      const patched = await t.http
        .patch(`${base()}/${created.id}`)
        .set(bearer(admin))
        .send({ name: 'Ops', url: other.url, min_severity: 'low', is_enabled: false });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        name: 'Ops',
        kind: 'slack',
        min_severity: 'low',
        is_enabled: false,
      });
      expect(JSON.stringify(patched.body)).not.toContain('secret-token');

      // Sealed at rest: the row holds no part of the URL's secret path.
      const [row] = (await db().query(`SELECT url_sealed, url_host FROM chat_channels WHERE id = $1`, [
        created.id,
      ])) as { url_sealed: string; url_host: string }[];
      expect(row.url_sealed).toMatch(/^v1\./);
      expect(row.url_sealed).not.toContain('secret-token');
      expect(row.url_host).toBe('127.0.0.1');

      expect((await t.http.delete(`${base()}/${created.id}`).set(bearer(admin))).status).toBe(204);
      expectProblem(await t.http.get(`${base()}/${created.id}`).set(bearer(admin)), 404);
      expectProblem(await t.http.delete(`${base()}/${created.id}`).set(bearer(admin)), 404);
    });

    it('is for space admins: 403 for an editor, 404 in a space the caller is not in', async () => {
      const r = await receiver('slack');
      const channel = await createChannel('slack', r.url);
      expectProblem(await t.http.get(base()).set(bearer(editor)), 403);
      expectProblem(await t.http.get(`${base()}/${channel.id}`).set(bearer(editor)), 403);
      expectProblem(
        await t.http
          .post(base())
          .set(bearer(editor))
          .send({ name: 'x', kind: 'slack', url: r.url, event_types: ['alert.raised'] }),
        403,
      );
      expectProblem(await t.http.post(`${base()}/${channel.id}/test`).set(bearer(editor)), 403);
      expect(r.received).toHaveLength(0);

      const stranger = await createUser(t.http);
      const theirs = await createSpace(t.http, stranger);
      expectProblem(await t.http.get(base()).set(bearer(stranger)), 404);
      expectProblem(await t.http.get(`${base(theirs)}/${channel.id}`).set(bearer(stranger)), 404);
      expectProblem(
        await t.http
          .patch(`${base(theirs)}/${channel.id}`)
          .set(bearer(stranger))
          .send({}),
        404,
      );
    });

    it('refuses unknown kinds, event types and severities (422 naming the field)', async () => {
      const r = await receiver('slack');
      const bad = (fields: Record<string, unknown>) =>
        t.http
          .post(base())
          .set(bearer(admin))
          .send({ name: 'x', kind: 'slack', url: r.url, event_types: ['alert.raised'], ...fields });
      for (const [fields, field] of [
        [{ kind: 'discord' }, 'kind'],
        [{ event_types: ['product.created'] }, 'event_types'],
        [{ event_types: [] }, 'event_types'],
        [{ min_severity: 'urgent' }, 'min_severity'],
        [{ url: 'ftp://127.0.0.1/x' }, 'url'],
      ] as const) {
        const res = await bad(fields);
        expectProblem(res, 422);
        expect(invalidFields(res)).toEqual([field]);
      }
    });

    it('lists the event types as an enum in the OpenAPI document', async () => {
      const doc = await t.http.get(`${API}/openapi.json`);
      expect(doc.body.components.schemas.ChatEventType.enum).toEqual([
        'incident.opened',
        'incident.escalated',
        'incident.resolved',
        'alert.raised',
        'policy.violated',
        'access_request.submitted',
        'access_request.approved',
        'access_request.rejected',
        'webhook.failing',
        'connector.failing',
        'lineage.run_failed',
      ]);
      expect(doc.body.paths['/api/v1.0/spaces/{slug}/chat-channels'].post.description).toContain(
        'last 5 messages',
      );
    });
  });

  describe('the test route', () => {
    it.each(KINDS)('posts a %s test message in the platform shape and answers the outcome', async (kind) => {
      const r = await receiver(kind);
      const channel = await createChannel(kind, r.url);
      const ok = await t.http.post(`${base()}/${channel.id}/test`).set(bearer(admin));
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ success: true, status_code: 200, error: null });
      expect(r.received).toHaveLength(1);
      expect(r.received[0].errors).toEqual([]);
      expect(r.received[0].contentType).toMatch(/^application\/json/);
      expect(textOf(r.received[0])).toContain('Test message from Verity');

      r.respondWith(503);
      const failed = await t.http.post(`${base()}/${channel.id}/test`).set(bearer(admin));
      expect(failed.body).toEqual({
        success: false,
        status_code: 503,
        error: expect.stringContaining('503'),
      });

      // An unreachable endpoint: the error names no part of the URL's secret path.
      await r.close();
      const down = await t.http.post(`${base()}/${channel.id}/test`).set(bearer(admin));
      expect(down.body).toMatchObject({ success: false, status_code: null });
      expect(down.body.error).not.toContain('secret-token');
      // Tests never count towards disabling.
      const after = await t.http.get(`${base()}/${channel.id}`).set(bearer(admin));
      expect(after.body).toMatchObject({ is_enabled: true, failing_since: null });
    });
  });

  describe('messages', () => {
    it('posts an incident and its alert in each platform format, escaped, with a link under PUBLIC_BASE_URL', async () => {
      const s = await createSpace(t.http, admin, { name: 'Finance & <Ops> @here' });
      await addMember(t.http, admin, s, editor, 'editor');
      const product = await createProduct(t.http, editor, s, { name: 'orders <!channel> *x*' });
      const byKind = new Map<ChatPayloadKind, ChatReceiver>();
      for (const kind of KINDS) {
        const r = await receiver(kind);
        byKind.set(kind, r);
        await createChannel(kind, r.url, { event_types: ['incident.opened', 'alert.raised'] }, s);
      }
      const alert = await pushAlert(s, product.id, {
        severity: 'high',
        message: 'Null rate <@U123> & rising',
      });
      await settle();
      const link = `http://app.verity.test/api/v1.0/spaces/${s.slug}/incidents/${alert.incident_id}`;
      for (const [kind, r] of byKind) {
        // The incident and its first alert came in one minute: one message.
        expect(r.received).toHaveLength(1);
        const [message] = r.received;
        expect({ kind, errors: message.errors }).toEqual({ kind, errors: [] });
        expect(textOf(message)).toContain(link);
        expect(textOf(message)).toContain('high');
        expect(textOf(message)).toContain('1 more event');
      }
      const slack = byKind.get('slack')!.received[0].body as { text: string; blocks: { type: string }[] };
      expect(slack.text).not.toMatch(/<|>/);
      expect(slack.text).toContain('Finance &amp; &lt;Ops&gt; @\u2060here');
      expect(slack.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context', 'actions']);
      expect(JSON.stringify(slack.blocks)).toContain('orders <!channel> *x*');
      expect(JSON.stringify(slack.blocks)).not.toContain('"mrkdwn"');
      const teams = JSON.stringify(byKind.get('teams')!.received[0].body);
      expect(teams).toContain('orders \\\\<\\\\!channel\\\\> \\\\*x\\\\*');
      const google = JSON.stringify(byKind.get('google_chat')!.received[0].body);
      expect(google).toContain('orders &lt;!channel&gt; *x*');
      expect(google).toContain('Null rate &lt;@U123&gt; &amp; rising');
    });

    it('posts only events at or above the minimum severity', async () => {
      const s = await freshSpace();
      const r = await receiver('slack');
      await createChannel('slack', r.url, { event_types: ['alert.raised'], min_severity: 'high' }, s);
      await pushAlert(s, (await createProduct(t.http, editor, s)).id, { severity: 'medium' });
      await settle();
      expect(r.received).toHaveLength(0);
      await pushAlert(s, (await createProduct(t.http, editor, s)).id, { severity: 'critical' });
      await settle();
      expect(r.received).toHaveLength(1);
      expect(textOf(r.received[0])).toContain('critical');
    });

    it('posts an escalation when the severity of an incident is raised, and its resolution', async () => {
      const s = await freshSpace();
      const r = await receiver('teams');
      await createChannel('teams', r.url, { event_types: ['incident.escalated', 'incident.resolved'] }, s);
      const alert = await pushAlert(s, (await createProduct(t.http, editor, s)).id, { severity: 'low' });
      const incident = `${API}/spaces/${s.slug}/incidents/${alert.incident_id}`;
      await t.http.patch(incident).set(bearer(editor)).send({ severity: 'medium' }).expect(200);
      await t.http.patch(incident).set(bearer(editor)).send({ severity: 'low' }).expect(200);
      await settle();
      expect(r.received).toHaveLength(1);
      expect(textOf(r.received[0])).toContain('Incident escalated');
      expect(textOf(r.received[0])).toContain('from low to medium');
      await t.http.post(`${incident}/resolve`).set(bearer(editor)).expect(200);
      await settle();
      expect(r.received).toHaveLength(2);
      expect(textOf(r.received[1])).toContain('Incident resolved');
      expect(r.received.every((m) => m.errors.length === 0)).toBe(true);
    });

    it('coalesces an alert storm into one message per incident per minute', async () => {
      const s = await freshSpace();
      const r = await receiver('google_chat');
      const channel = await createChannel(
        'google_chat',
        r.url,
        { event_types: ['incident.opened', 'alert.raised'] },
        s,
      );
      const product = await createProduct(t.http, editor, s);
      const first = await pushAlert(s, product.id);
      await settle();
      expect(r.received).toHaveLength(1);

      // Twenty more alerts of the same incident within the minute: none goes out before the minute is over.
      for (let i = 0; i < 20; i++) {
        const next = await pushAlert(s, product.id, { severity: i === 10 ? 'critical' : 'medium' });
        expect(next.incident_id).toBe(first.incident_id);
      }
      await settle();
      expect(r.received).toHaveLength(1);
      expect(await pendingChatJobDelays(channel.id)).toEqual([60_000]);

      clock.advance(60_000);
      await chatJobsDueNow();
      expect(r.received).toHaveLength(2);
      expect(r.received[1].errors).toEqual([]);
      expect(textOf(r.received[1])).toContain('+19 more events for this incident in the last minute');
      expect(textOf(r.received[1])).toContain('critical');

      // Later than a minute after the last message, the next alert goes out at once.
      clock.advance(61_000);
      await pushAlert(s, product.id);
      await settle();
      expect(r.received).toHaveLength(3);
      expect(await pendingChatJobDelays(channel.id)).toEqual([]);
      expect(textOf(r.received[2])).not.toContain('more event');
    });

    it('posts webhook and connector failures', async () => {
      const s = await freshSpace();
      const r = await receiver('slack');
      await createChannel('slack', r.url, { event_types: ['webhook.failing', 'connector.failing'] }, s);
      const hook = await receiver('slack');
      hook.respondWith(500);
      await t.http
        .post(`${API}/spaces/${s.slug}/webhooks`)
        .set(bearer(admin))
        .send({ url: hook.url, event_types: ['product.created'] })
        .expect(201);
      await createProduct(t.http, editor, s);
      await settle();
      const connector = await t.http
        .post(`${API}/connectors/spaces/${s.slug}`)
        .set(bearer(editor))
        .send({
          name: 'Warehouse',
          connector_type: 'postgresql',
          config: { connection_string: 'postgres://reader:pw@127.0.0.1:1/warehouse?sslmode=disable' },
        })
        .expect(201);
      await t.http
        .post(`${API}/connectors/spaces/${s.slug}/${connector.body.id}/sync`)
        .set(bearer(editor))
        .expect(200);
      // A second failure in a row is no news.
      await t.http
        .post(`${API}/connectors/spaces/${s.slug}/${connector.body.id}/sync`)
        .set(bearer(editor))
        .expect(200);
      await settle();
      const texts = r.received.map(textOf);
      expect(texts.filter((text) => text.includes('Webhook to 127.0.0.1 is failing'))).toHaveLength(1);
      expect(texts.filter((text) => text.includes('Connector Warehouse is failing'))).toHaveLength(1);
      expect(texts.join()).not.toContain('secret-token');
      expect(r.received.every((m) => m.errors.length === 0)).toBe(true);
    });

    it('posts access requests and their decisions, and failed OpenLineage runs', async () => {
      const s = await freshSpace();
      const r = await receiver('google_chat');
      await createChannel(
        'google_chat',
        r.url,
        { event_types: ['access_request.submitted', 'access_request.rejected', 'lineage.run_failed'] },
        s,
      );
      const product = await createProduct(t.http, editor, s, { name: 'ledger' });
      const requester = await createUser(t.http);
      await addMember(t.http, admin, s, requester, 'viewer');
      const requested = await t.http
        .post(`${API}/catalog/spaces/${s.slug}/products/${product.id}/access-requests`)
        .set(bearer(requester))
        .send({ access_level: 'read', justification: 'Quarterly report' })
        .expect(201);
      await t.http
        .post(`${API}/catalog/spaces/${s.slug}/access-requests/${requested.body.id}/reject`)
        .set(bearer(admin))
        .send({ reason: 'Use the <b>mart</b>' })
        .expect(200);

      const datasets = uniqueNamespace('postgres://warehouse');
      const jobs = uniqueNamespace('airflow');
      await mapNamespaces(t.http, admin, s, [
        { namespace: datasets, create_products: true },
        { namespace: jobs, create_products: false },
      ]);
      const key = await createApiKey(t.http, admin);
      const failed = olEvent('airflow-task-fail', {
        'airflow-prod': jobs,
        'postgres://warehouse.internal:5432': datasets,
      });
      expect((await postEvents(t, key, failed)).status).toBeLessThan(300);
      await applyEvents(t);
      await settle();

      // Messages due together are posted concurrently: in no particular order.
      const texts = r.received.map(textOf);
      expect(texts).toHaveLength(3);
      expect(texts).toEqual(
        expect.arrayContaining([
          expect.stringContaining('Access requested to ledger'),
          expect.stringContaining('rejected: Use the &lt;b&gt;mart&lt;/b&gt;'),
          expect.stringMatching(new RegExp(`Run failed.*/api/v1\\.0/spaces/${s.slug}/lineage/jobs/`)),
        ]),
      );
      expect(r.received.every((m) => m.errors.length === 0)).toBe(true);
    });
  });

  describe('delivery', () => {
    it('retries after 1 s, 5 s and 25 s, or after a Retry-After of up to 60 s', async () => {
      const s = await freshSpace();
      const r = await receiver('slack');
      const channel = await createChannel('slack', r.url, { event_types: ['incident.opened'] }, s);
      r.respondWith(500, { status: 429, headers: { 'retry-after': '30' } }, 502, 200);
      await pushAlert(s, (await createProduct(t.http, editor, s)).id);
      await settle();
      expect(r.received).toHaveLength(1);
      expect(await pendingChatJobDelays(channel.id)).toEqual([1_000]);
      await chatJobsDueNow();
      expect(r.received).toHaveLength(2);
      expect(await pendingChatJobDelays(channel.id)).toEqual([30_000]);
      await chatJobsDueNow();
      expect(await pendingChatJobDelays(channel.id)).toEqual([25_000]);
      await chatJobsDueNow();
      expect(r.received).toHaveLength(4);
      expect(await pendingChatJobDelays(channel.id)).toEqual([]);
      // The same message every time.
      expect(new Set(r.received.map(textOf)).size).toBe(1);

      r.respondWith({ status: 429, headers: { 'retry-after': '600' } }, 200);
      await pushAlert(s, (await createProduct(t.http, editor, s)).id);
      await settle();
      expect(await pendingChatJobDelays(channel.id)).toEqual([60_000]);
      await chatJobsDueNow();
      expect(r.received).toHaveLength(6);
    });

    // Eleven messages, up to 44 attempts through the job queue: roomy for a loaded machine.
    it('disables a channel whose last 5 messages failed after their retries, and tells the space admins', async () => {
      const s = await freshSpace();
      const r = await receiver('teams');
      const channel = await createChannel(
        'teams',
        r.url,
        { name: 'Data on-call', event_types: ['incident.opened'] },
        s,
      );
      r.respondWith(500);

      // Unrelated products: each alert opens an incident of its own, and each incident one message.
      const failMessages = async (count: number) => {
        for (let i = 0; i < count; i++) await pushAlert(s, (await createProduct(t.http, editor, s)).id);
        await settle();
        for (let retry = 0; retry < 3; retry++) await chatJobsDueNow();
      };
      await failMessages(4);
      expect(r.received).toHaveLength(16);
      let state = (await t.http.get(`${base(s)}/${channel.id}`).set(bearer(admin))).body as Channel;
      expect(state).toMatchObject({ is_enabled: true, failing_since: expect.any(String) });

      // A message that goes through resets the count.
      r.respondWith(200);
      await failMessages(1);
      state = (await t.http.get(`${base(s)}/${channel.id}`).set(bearer(admin))).body as Channel;
      expect(state).toMatchObject({ is_enabled: true, failing_since: null });

      r.respondWith(500);
      await failMessages(4);
      state = (await t.http.get(`${base(s)}/${channel.id}`).set(bearer(admin))).body as Channel;
      expect(state.is_enabled).toBe(true);
      await failMessages(1);
      state = (await t.http.get(`${base(s)}/${channel.id}`).set(bearer(admin))).body as Channel;
      expect(state).toMatchObject({ is_enabled: false, failing_since: expect.any(String) });

      const notes = await t.http
        .get(`${API}/notifications?type=chat_channel_disabled&size=100`)
        .set(bearer(admin));
      const mine = notes.body.items.filter(
        (n: { data: { chat_channel_id: string } }) => n.data.chat_channel_id === channel.id,
      );
      expect(mine).toHaveLength(1);
      expect(mine[0].title).toContain('Data on-call');
      const editorNotes = await t.http
        .get(`${API}/notifications?type=chat_channel_disabled&size=100`)
        .set(bearer(editor));
      expect(editorNotes.body.items).toHaveLength(0);

      // Disabled: nothing more is posted, until an admin enables it again.
      const before = r.received.length;
      await failMessages(1);
      expect(r.received).toHaveLength(before);
      const enabled = await t.http
        .patch(`${base(s)}/${channel.id}`)
        .set(bearer(admin))
        .send({ is_enabled: true });
      expect(enabled.body).toMatchObject({ is_enabled: true, failing_since: null });
      expect(r.received.every((m) => m.errors.length === 0)).toBe(true);
    }, 120_000);
  });

  describe('the URL policy with the default settings', () => {
    let strict: TestApp;
    let strictAdmin: TestUser;
    let strictSpace: TestSpace;
    // Public names resolve to a public address; nothing is dialled on save.
    const resolver: HostResolver = () => Promise.resolve([{ address: '93.184.215.14', family: 4 }]);

    beforeAll(async () => {
      strict = await startApp({ hostResolver: resolver });
      strictAdmin = await createUser(strict.http);
      strictSpace = await createSpace(strict.http, strictAdmin);
    });
    afterAll(() => strict.close());

    const save = (kind: string, url: string) =>
      strict.http
        .post(`${API}/spaces/${strictSpace.slug}/chat-channels`)
        .set(bearer(strictAdmin))
        .send({ name: 'x', kind, url, event_types: ['alert.raised'] });

    it.each([
      ['slack', 'https://hooks.slack.com/services/T0/B0/abc', 'hooks.slack.com'],
      [
        'teams',
        'https://prod-23.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=x',
        'prod-23.westeurope.logic.azure.com',
      ],
      [
        'teams',
        'https://default0a1b.0a.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/abc/triggers/manual/paths/invoke?sig=x',
        'default0a1b.0a.environment.api.powerplatform.com',
      ],
      ['teams', 'https://contoso.webhook.office.com/webhookb2/abc', 'contoso.webhook.office.com'],
      [
        'google_chat',
        'https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t',
        'chat.googleapis.com',
      ],
    ])('accepts a %s URL on its platform host (%s)', async (kind, url, host) => {
      const res = await save(kind, url);
      expect(res.status).toBe(201);
      expect(res.body.url_host).toBe(host);
      expect(JSON.stringify(res.body)).not.toContain('sig=');
    });

    it.each([
      ['slack', 'https://example.com/services/T0/B0/abc', 'host_not_allowed'],
      ['slack', 'https://chat.googleapis.com/v1/spaces/AAA/messages', 'host_not_allowed'],
      ['teams', 'https://logic.azure.com.evil.test/workflows', 'host_not_allowed'],
      ['google_chat', 'https://hooks.slack.com/services/x', 'host_not_allowed'],
      ['slack', 'http://hooks.slack.com/services/T0/B0/abc', 'scheme_not_allowed'],
      ['slack', 'https://localhost:8080/hook', 'local_host_name'],
      ['slack', 'https://127.0.0.1/hook', 'private_address'],
      ['teams', 'https://169.254.169.254/latest', 'metadata_host'],
    ])('refuses a %s URL %s (%s)', async (kind, url, reason) => {
      const res = await save(kind, url);
      expectProblem(res, 422);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'url', reason })]);
      expect(JSON.stringify(res.body)).not.toContain('abc');
    });
  });
});
