import { DataSource } from 'typeorm';
import { NotificationsService } from '../../src/modules/notifications/notifications.service';
import { NotificationType } from '../../src/modules/notifications/notification-types';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { MailerService } from '../../src/platform/mail/mailer.service';
import { startApp, TestApp } from '../support/app';
import { bearer, createUser, TestUser } from '../support/factories';
import { expectProblem } from '../support/problem';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';

const API = '/api/v1.0';

describe('notifications', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  /** What a producer module does: notify inside its own transaction. */
  async function notify(
    users: TestUser[],
    type: NotificationType,
    title: string,
    data: object = {},
  ): Promise<void> {
    await t.app.get(DataSource).transaction((em) =>
      t.app.get(NotificationsService).notify(em, {
        recipients: users.map((u) => u.id),
        type,
        title,
        message: `${title} (details)`,
        data: { space_id: '00000000-0000-4000-8000-000000000001', ...data } as never,
      }),
    );
  }

  async function settle(): Promise<void> {
    await t.app.get(JobRunner).drain();
    await t.app.get(MailerService).flush();
  }

  it('lists only my notifications, newest first, with filters and 1-based pages', async () => {
    const me = await createUser(t.http);
    const other = await createUser(t.http);
    await notify([me], 'quality_alert', 'Freshness breach on orders', { severity: 'high' });
    await notify([me], 'issue_assigned', 'Ticket assigned to you', {
      ticket_id: '00000000-0000-4000-8000-000000000002',
    });
    await notify([other], 'quality_alert', 'Not for you');

    const all = await t.http.get(`${API}/notifications`).set(bearer(me));
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: expect.any(Array), total: 2, page: 1, size: 20 });
    expect(all.body.items.map((n: { title: string }) => n.title)).toEqual([
      'Ticket assigned to you',
      'Freshness breach on orders',
    ]);
    expect(all.body.items[1]).toEqual({
      id: expect.any(String),
      type: 'quality_alert',
      title: 'Freshness breach on orders',
      message: 'Freshness breach on orders (details)',
      read: false,
      data: expect.objectContaining({ severity: 'high' }),
      created_at: expect.stringMatching(/Z$/),
    });

    const byType = await t.http.get(`${API}/notifications?type=quality_alert`).set(bearer(me));
    expect(byType.body.total).toBe(1);
    const paged = await t.http.get(`${API}/notifications?page=2&size=1`).set(bearer(me));
    expect(paged.body).toEqual(expect.objectContaining({ total: 2, page: 2, size: 1 }));
    expect(paged.body.items[0].title).toBe('Freshness breach on orders');
    expectProblem(await t.http.get(`${API}/notifications?type=spam`).set(bearer(me)), 422);
  });

  it('counts unread by type, and read marks move the counts', async () => {
    const me = await createUser(t.http);
    await notify([me], 'quality_alert', 'A1');
    await notify([me], 'quality_alert', 'A2');
    await notify([me], 'access_submitted', 'R1', { request_id: 'r', product_id: 'p' });
    const count = await t.http.get(`${API}/notifications/unread-count`).set(bearer(me));
    expect(count.body).toEqual({ count: 3, by_type: { quality_alert: 2, access_submitted: 1 } });

    const list = await t.http.get(`${API}/notifications?type=access_submitted`).set(bearer(me));
    const id = list.body.items[0].id;
    const read = await t.http.patch(`${API}/notifications/${id}`).set(bearer(me)).send({ read: true });
    expect(read.status).toBe(200);
    expect(read.body.read).toBe(true);
    // Marking read twice does not count twice.
    await t.http.patch(`${API}/notifications/${id}`).set(bearer(me)).send({ read: true }).expect(200);
    expect((await t.http.get(`${API}/notifications/unread-count`).set(bearer(me))).body).toEqual({
      count: 2,
      by_type: { quality_alert: 2 },
    });
    const unreadOnly = await t.http.get(`${API}/notifications?unread_only=true`).set(bearer(me));
    expect(unreadOnly.body.total).toBe(2);

    await t.http.patch(`${API}/notifications/${id}`).set(bearer(me)).send({ read: false }).expect(200);
    expect((await t.http.get(`${API}/notifications/unread-count`).set(bearer(me))).body.count).toBe(3);
  });

  it('marks all read, optionally one type only', async () => {
    const me = await createUser(t.http);
    await notify([me], 'quality_alert', 'A1');
    await notify([me], 'quality_alert', 'A2');
    await notify([me], 'issue_mentioned', 'M1', { ticket_id: 't' });
    const typed = await t.http
      .post(`${API}/notifications/mark-all-read`)
      .set(bearer(me))
      .send({ type: 'quality_alert' });
    expect(typed.status).toBe(200);
    expect(typed.body).toEqual({ marked_read: 2 });
    expect((await t.http.get(`${API}/notifications/unread-count`).set(bearer(me))).body).toEqual({
      count: 1,
      by_type: { issue_mentioned: 1 },
    });
    const rest = await t.http.post(`${API}/notifications/mark-all-read`).set(bearer(me)).send({});
    expect(rest.body).toEqual({ marked_read: 1 });
    expect((await t.http.get(`${API}/notifications/unread-count`).set(bearer(me))).body).toEqual({
      count: 0,
      by_type: {},
    });
  });

  it("answers 404 for someone else's notification and 401 without a token", async () => {
    const me = await createUser(t.http);
    const other = await createUser(t.http);
    await notify([other], 'quality_alert', 'Theirs');
    const theirs = await t.http.get(`${API}/notifications`).set(bearer(other));
    expectProblem(
      await t.http
        .patch(`${API}/notifications/${theirs.body.items[0].id}`)
        .set(bearer(me))
        .send({ read: true }),
      404,
    );
    expectProblem(
      await t.http
        .patch(`${API}/notifications/${theirs.body.items[0].id}`)
        .set(bearer(me))
        .send({ read: 'yes' }),
      422,
    );
    expectProblem(await t.http.get(`${API}/notifications`), 401);
  });

  describe('email', () => {
    it('mails at once by default, with a text and an HTML part', async () => {
      const me = await createUser(t.http);
      await notify([me], 'quality_alert', 'Null rate above 5% on customers');
      await settle();
      const mail = await smtp.waitFor((m) => m.to.includes(me.email));
      expect(mail.subject).toBe('Null rate above 5% on customers');
      expect(mail.text).toContain('Null rate above 5% on customers (details)');
      expect(mail.html).toContain('<p>Null rate above 5% on customers (details)</p>');
    });

    it('sends nothing when email is off or the digest option is none', async () => {
      const off = await createUser(t.http);
      const none = await createUser(t.http);
      const category = await createUser(t.http);
      await t.http
        .patch(`${API}/preferences`)
        .set(bearer(off))
        .send({ notifications: { email_enabled: false } })
        .expect(200);
      await t.http
        .patch(`${API}/preferences`)
        .set(bearer(none))
        .send({ notifications: { email_digest: 'none' } })
        .expect(200);
      await t.http
        .patch(`${API}/preferences`)
        .set(bearer(category))
        .send({ notifications: { quality_alerts: false } })
        .expect(200);
      await notify([off, none, category], 'quality_alert', 'Silent alert');
      await settle();
      const queued = await t.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM mail_outbox WHERE recipient = ANY($1)`, [
          [off.email, none.email, category.email],
        ]);
      expect(queued[0].n).toBe(0);
      // The in-platform notification still exists.
      expect((await t.http.get(`${API}/notifications`).set(bearer(off))).body.total).toBe(1);
    });

    it("gathers a daily digest for 09:00 in the user's time zone into one mail", async () => {
      const me = await createUser(t.http);
      await t.http
        .patch(`${API}/preferences`)
        .set(bearer(me))
        .send({ notifications: { email_digest: 'daily' }, ui: { timezone: 'Asia/Tokyo' } })
        .expect(200);
      await notify([me], 'quality_alert', 'First digest item');
      await notify([me], 'issue_assigned', 'Second digest item', { ticket_id: 't' });
      await settle();
      expect(smtp.messages.filter((m) => m.to.includes(me.email))).toEqual([]);

      const db = t.app.get(DataSource);
      const jobs = await db.query(`SELECT run_at FROM jobs WHERE singleton_key = $1 AND status = 'pending'`, [
        `digest:${me.id}`,
      ]);
      expect(jobs).toHaveLength(1);
      const due: Date = jobs[0].run_at;
      // 09:00 in Tokyo is 00:00 UTC, within the next day.
      expect(due.getUTCHours()).toBe(0);
      expect(due.getUTCMinutes()).toBe(0);
      expect(due.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

      // Bring the digest forward to now instead of waiting for nine o'clock.
      await db.query(`UPDATE jobs SET run_at = now() WHERE singleton_key = $1 AND status = 'pending'`, [
        `digest:${me.id}`,
      ]);
      await settle();
      const digest = await smtp.waitFor((m) => m.to.includes(me.email));
      expect(digest.subject).toBe('Verity digest: 2 new notifications');
      expect(digest.text).toContain('First digest item');
      expect(digest.text).toContain('Second digest item');
      expect(digest.html).toContain('<li><strong>First digest item</strong>');
      await settle();
      expect(smtp.messages.filter((m) => m.to.includes(me.email))).toHaveLength(1);
    });
  });

  describe('live stream', () => {
    it('sends the unread count on connect and each new notification as it is committed', async () => {
      const me = await createUser(t.http);
      await notify([me], 'quality_alert', 'Before connecting');
      const controller = new AbortController();
      const res = await fetch(`${t.baseUrl}${API}/notifications/stream`, {
        headers: { authorization: `Bearer ${me.token}` },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      let buffer = '';
      const nextEvent = async (type: string): Promise<unknown> => {
        for (;;) {
          const match = new RegExp(`event: ${type}\\n(?:id: [^\\n]*\\n)?data: ([^\\n]*)\\n\\n`).exec(buffer);
          if (match) {
            buffer = buffer.slice(match.index + match[0].length);
            return JSON.parse(match[1]);
          }
          const { value, done } = await reader.read();
          if (done) throw new Error('stream ended');
          buffer += new TextDecoder().decode(value);
        }
      };
      try {
        expect(await nextEvent('unread_count')).toEqual({ count: 1, by_type: { quality_alert: 1 } });
        await notify([me], 'issue_assigned', 'While connected', { ticket_id: 't' });
        expect(await nextEvent('notification')).toEqual(
          expect.objectContaining({ title: 'While connected', type: 'issue_assigned' }),
        );
        expect(await nextEvent('unread_count')).toEqual({
          count: 2,
          by_type: { quality_alert: 1, issue_assigned: 1 },
        });
      } finally {
        controller.abort();
      }
    });

    it('needs authentication', async () => {
      const res = await fetch(`${t.baseUrl}${API}/notifications/stream`);
      expect(res.status).toBe(401);
    });
  });
});
