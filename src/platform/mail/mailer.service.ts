import { Inject, Injectable, Logger, BeforeApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Transporter } from 'nodemailer';
import { EntityManager, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { SerialTask } from '../jobs/serial-task';
import { Wakeup } from '../jobs/wakeup.service';
import { MailAttachment, MailMessage } from './entities/mail-message.entity';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { ClaimedRow, MailQueries } from './mail.queries';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: MailAttachment[];
}

const BATCH = 20;
const MAX_ATTEMPTS = 6;
const POLL_MS = 5_000;

/**
 * Mail is enqueued inside the caller's transaction and sent after commit, so
 * a rolled-back change sends nothing and a crash loses nothing. Without
 * SMTP_URL the message stays in `mail_outbox` and only its envelope is logged
 * (bodies may hold one-time links).
 */
@Injectable()
export class MailerService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(MailerService.name);
  /** Made on the first delivery: nodemailer is loaded only by a process that sends mail. */
  private transport: Promise<Transporter> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly loop = new SerialTask(
    () => this.deliverPending(),
    (error) => this.logger.error(`Mail delivery pass failed: ${String(error)}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(MailMessage) private readonly messages: Repository<MailMessage>,
    private readonly wakeup: Wakeup,
    private readonly databases: InstanceDatabases,
    private readonly queries: MailQueries,
  ) {}

  onModuleInit(): void {
    this.wakeup.on('mail', () => this.kick());
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.loop.stop();
    if (this.transport) (await this.transport).close();
  }

  async enqueue(em: EntityManager, mail: OutgoingMail): Promise<void> {
    await em.getRepository(MailMessage).insert({
      recipient: mail.to,
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html,
      attachments: mail.attachments ?? [],
    });
    this.wakeup.signalHere(em, 'mail');
  }

  /** Starts a delivery pass; passes never overlap. Enqueueing starts one after its commit by itself. */
  kick(): void {
    this.loop.kick();
  }

  /** Waits until everything enqueued so far had its delivery attempt (tests, shutdown). */
  async flush(): Promise<void> {
    this.kick();
    await this.loop.idle();
  }

  /** Mail is queued in the database of the instance whose work sent it: one pass per instance. */
  private async deliverPending(): Promise<void> {
    await this.databases.eachInstance(
      () => this.deliverPendingHere(),
      (instanceId, error) =>
        this.logger.error(`Mail delivery failed on instance ${instanceId}: ${String(error)}`),
    );
  }

  private async deliverPendingHere(): Promise<void> {
    for (;;) {
      // Claim in one statement so no transaction is held while talking SMTP;
      // a claim left by a crashed process expires after a minute.
      // No transaction: the claim runs on the (instance's) DataSource manager.
      const claimed = await this.queries.claimDue(this.messages.manager, BATCH);
      if (!claimed.length) return;
      for (const row of claimed) await this.deliver(row);
      if (claimed.length < BATCH) return;
    }
  }

  private smtp(smtpUrl: string): Promise<Transporter> {
    this.transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport(smtpUrl, { from: this.config.mailFrom }),
    );
    return this.transport;
  }

  private async deliver(row: ClaimedRow): Promise<void> {
    if (!this.config.smtpUrl) {
      this.logger.log(`Mail to ${row.recipient} kept in mail_outbox (no SMTP_URL): "${row.subject}"`);
      await this.messages.update(row.id, { status: 'logged', sentAt: new Date(), lastError: null });
      return;
    }
    try {
      const transport = await this.smtp(this.config.smtpUrl);
      await transport.sendMail({
        to: row.recipient,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        attachments: row.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: Buffer.from(a.content, 'base64'),
        })),
      });
      await this.messages.update(row.id, { status: 'sent', sentAt: new Date(), lastError: null });
    } catch (error) {
      const failed = row.attempts >= MAX_ATTEMPTS;
      const delaySeconds = 30 * 2 ** row.attempts;
      this.logger.warn(`Mail to ${row.recipient} failed (attempt ${row.attempts}): ${String(error)}`);
      await this.messages.update(row.id, {
        status: failed ? 'failed' : 'pending',
        lastError: String(error).slice(0, 1000),
        nextAttemptAt: new Date(Date.now() + delaySeconds * 1000),
      });
    }
  }
}
