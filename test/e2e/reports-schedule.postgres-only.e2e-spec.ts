import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { MailerService } from '../../src/platform/mail/mailer.service';
import { startApp, TestApp } from '../support/app';
import { bearer, createProduct, createSpace, createUser } from '../support/factories';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';

// Two replicas on one database (PostgreSQL only: the embedded database serves one process).
describe('scheduled reports across replicas', () => {
  let a: TestApp;
  let b: TestApp;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    a = await startApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await Promise.all([a.close(), b?.close()]);
    await smtp.close();
  });

  async function fireDueSchedules(db: DataSource, scheduleId: string): Promise<void> {
    await db.query(`UPDATE report_schedules SET next_run_at = now() - interval '1 minute' WHERE id = $1`, [
      scheduleId,
    ]);
    await db.query(
      `UPDATE job_schedules SET next_run_at = now() - interval '1 minute' WHERE name = 'reports.dispatch-due'`,
    );
    await Promise.all([a.app.get(JobRunner).drain(), b.app.get(JobRunner).drain()]);
    await Promise.all([a.app.get(MailerService).flush(), b.app.get(MailerService).flush()]);
  }

  it('sends a due report once, moves it to its next time, and retries a failed sending', async () => {
    const db = a.app.get(DataSource);
    // Jobs left mid-flight by suites that ran before on this worker's database do not matter here.
    await db.query(
      `UPDATE jobs SET status = 'failed', finished_at = now() WHERE status IN ('pending', 'running')`,
    );
    const user = await createUser(a.http);
    const space = await createSpace(a.http, user);
    await createProduct(a.http, user, space, { name: 'scheduled-product' });
    const recipient = `sched-${randomUUID().slice(0, 8)}@example.test`;
    const created = await a.http
      .post(`/api/v1.0/spaces/${space.slug}/reports`)
      .set(bearer(user))
      .send({
        name: 'Nightly',
        report_type: 'catalog_inventory',
        frequency: 'daily',
        recipients: [recipient],
      });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The second replica starts once the data is in place: authentication is process-wide (passport strategies), and
    // only the background work matters here.
    b = await startApp({ env: { SMTP_URL: smtp.url } });

    await fireDueSchedules(db, id);
    const mail = await smtp.waitFor((m) => m.to.includes(recipient));
    expect(mail.attachments[0].content.toString('utf8')).toContain('scheduled-product');
    const sends = await db.query(
      `SELECT status FROM jobs WHERE name = 'reports.send-scheduled' AND payload->>'schedule_id' = $1`,
      [id],
    );
    expect(sends).toEqual([{ status: 'done' }]);
    expect(smtp.messages.filter((m) => m.to.includes(recipient))).toHaveLength(1);
    const [schedule] = await db.query(
      `SELECT next_run_at, last_sent_at FROM report_schedules WHERE id = $1`,
      [id],
    );
    expect(schedule.last_sent_at).not.toBeNull();
    expect(schedule.next_run_at.getTime()).toBeGreaterThan(Date.now());
    expect(schedule.next_run_at.getUTCHours()).toBe(8);

    // A sending that fails (here: the report cannot be built) stays queued for a retry instead of being lost.
    await db.query(`UPDATE report_schedules SET report_type = 'no_such_report' WHERE id = $1`, [id]);
    await fireDueSchedules(db, id);
    const [failed] = await db.query(
      `SELECT status, attempts, last_error FROM jobs WHERE name = 'reports.send-scheduled' AND payload->>'schedule_id' = $1
        AND status <> 'done'`,
      [id],
    );
    expect(failed).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 1, last_error: expect.any(String) }),
    );
    await db.query(`UPDATE report_schedules SET report_type = 'catalog_inventory' WHERE id = $1`, [id]);
    await db.query(
      `UPDATE jobs SET run_at = now() WHERE name = 'reports.send-scheduled' AND status = 'pending'`,
    );
    await Promise.all([a.app.get(JobRunner).drain(), b.app.get(JobRunner).drain()]);
    await Promise.all([a.app.get(MailerService).flush(), b.app.get(MailerService).flush()]);
    await smtp.waitFor((m) => m.to.includes(recipient) && m !== mail);
    expect(smtp.messages.filter((m) => m.to.includes(recipient))).toHaveLength(2);
    const statuses = await db.query(
      `SELECT status, attempts FROM jobs WHERE name = 'reports.send-scheduled' AND payload->>'schedule_id' = $1 ORDER BY created_at`,
      [id],
    );
    expect(statuses).toEqual([
      { status: 'done', attempts: 1 },
      { status: 'done', attempts: 2 },
    ]);
  });
});
