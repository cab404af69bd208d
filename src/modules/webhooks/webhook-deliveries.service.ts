import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { TransactionRunner } from '../../database/transaction.runner';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { JobContext, JobRunner } from '../../platform/jobs/job-runner.service';
import { MailerService } from '../../platform/mail/mailer.service';
import { renderMail } from '../../platform/mail/templates';
import { OutboundResponse, SafeHttpClient } from '../../platform/outbound-http/safe-http.client';
import { DispatchedEvent, OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { Webhook } from './entities/webhook.entity';
import { WebhookQueries } from './webhooks.queries';
import { retryDelayMs, RETRY_SCHEDULE_MS, signatureHeaders } from './webhook-signature';

export const DELIVER_JOB = 'webhooks.deliver';
const FAILING_LIMIT_MS = 24 * 3600_000;

export interface AttemptResult {
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export const secretContext = (webhookId: string) => `webhook:${webhookId}`;

/** The body of every delivery: Standard Webhooks' `{type, timestamp, data}`. */
export function deliveryBody(type: string, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * Turns outbox events into signed deliveries to each subscribed webhook of
 * the event's space, retried on the schedule of docs/decisions.md#webhook-deliveries with every
 * attempt logged. An endpoint that answers 410, or keeps failing for 24
 * hours, is disabled and its creator told by email.
 */
@Injectable()
export class WebhookDeliveriesService implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly dispatcher: OutboxDispatcher,
    private readonly jobs: JobRunner,
    private readonly http: SafeHttpClient,
    private readonly secrets: SecretBox,
    private readonly mailer: MailerService,
    private readonly users: UserDirectoryService,
    private readonly queries: WebhookQueries,
    private readonly outbox: OutboxService,
  ) {}

  onModuleInit(): void {
    this.dispatcher.onBatch(['*'], 'webhooks', (events, em) => this.fanOut(events, em));
    this.jobs.register(DELIVER_JOB, (payload, context) => this.deliver(payload.delivery_id, context), {
      maxAttempts: RETRY_SCHEDULE_MS.length + 1,
      backoffMs: (attempt) => retryDelayMs(attempt) ?? 0,
      // Longer than the HTTP timeout: a worker that died mid-attempt is replaced within a minute.
      timeoutMs: 60_000,
    });
  }

  /**
   * Outbox consumer: one delivery per subscribed webhook, created exactly once
   * per event; a batch's subscribers are found and its deliveries written in one statement.
   */
  private async fanOut(events: DispatchedEvent[], em: EntityManager): Promise<void> {
    const inSpaces = events.filter((event) => event.spaceId);
    if (!inSpaces.length) return;
    const inserted = await this.queries.insertDeliveries(
      em,
      inSpaces.map((event) => ({
        eventId: event.id,
        spaceId: event.spaceId!,
        eventType: event.type,
        body: deliveryBody(event.type, event.occurredAt, event.data),
      })),
    );
    for (const { id } of inserted) await this.enqueue(em, id);
  }

  enqueue(em: EntityManager | null, deliveryId: string): Promise<void> {
    return this.jobs.enqueue(
      em,
      DELIVER_JOB,
      { delivery_id: deliveryId },
      { singletonKey: `webhook-delivery:${deliveryId}` },
    );
  }

  /** Sends a synthetic `webhook.test` event once, synchronously, and logs it like any delivery. */
  async sendTest(
    webhookId: string,
    data: Record<string, unknown>,
  ): Promise<AttemptResult & { deliveryId: string }> {
    const delivery = await this.dataSource.getRepository(WebhookDelivery).save({
      webhookId,
      eventId: null,
      eventType: 'webhook.test',
      body: deliveryBody('webhook.test', new Date(), data),
    });
    const result = await this.attempt(delivery.id);
    await this.dataSource.getRepository(WebhookDelivery).update(delivery.id, {
      status: result.succeeded ? 'succeeded' : 'failed',
      deliveredAt: result.succeeded ? new Date() : null,
    });
    return { ...result, deliveryId: delivery.id };
  }

  /** Manual redelivery: the same delivery (same `webhook-id`) goes through the retry schedule again. */
  async redeliver(deliveryId: string): Promise<void> {
    await this.tx.run(async (em) => {
      await em.getRepository(WebhookDelivery).update(deliveryId, { status: 'pending' });
      await this.enqueue(em, deliveryId);
    });
  }

  private async deliver(deliveryId: string, context: JobContext): Promise<void> {
    const delivery = await this.dataSource.getRepository(WebhookDelivery).findOneBy({ id: deliveryId });
    if (!delivery || delivery.status === 'succeeded') return;
    const webhook = await this.dataSource.getRepository(Webhook).findOneBy({ id: delivery.webhookId });
    if (!webhook?.isEnabled) {
      await this.dataSource.getRepository(WebhookDelivery).update(deliveryId, { status: 'failed' });
      return;
    }
    const result = await this.attempt(deliveryId);
    if (result.succeeded) {
      await this.tx.run(async (em) => {
        await em
          .getRepository(WebhookDelivery)
          .update(deliveryId, { status: 'succeeded', deliveredAt: new Date() });
        await em.getRepository(Webhook).update(webhook.id, { failingSince: null });
      });
      return;
    }
    const gone = result.statusCode === 410;
    const failingSince = webhook.failingSince ?? new Date();
    const failingTooLong = Date.now() - failingSince.getTime() >= FAILING_LIMIT_MS;
    const exhausted = retryDelayMs(context.attempt) === null;
    await this.tx.run(async (em) => {
      // Once per run of failures, so chat channels hear of a failing webhook without one message per
      // attempt: only the attempt that sets failing_since announces it (concurrent failures race here).
      const started = webhook.failingSince
        ? false
        : ((
            await em
              .getRepository(Webhook)
              .update({ id: webhook.id, failingSince: IsNull() }, { failingSince })
          ).affected ?? 0) > 0;
      if (started) {
        await this.announceFailing(
          em,
          webhook,
          'failing',
          failingSince,
          result.error ?? 'The delivery failed.',
        );
      }
      if (gone || failingTooLong) {
        await this.disable(
          em,
          webhook,
          gone ? 'The endpoint answered 410 Gone.' : 'Deliveries to the endpoint have failed for 24 hours.',
        );
      }
      if (gone || failingTooLong || exhausted) {
        await em.getRepository(WebhookDelivery).update(deliveryId, { status: 'failed' });
      }
    });
    // Throwing hands the delivery back to the job runner, which retries it on the schedule.
    if (!gone && !failingTooLong && !exhausted) throw new Error(result.error ?? `HTTP ${result.statusCode}`);
  }

  /** One signed POST, logged as an attempt. */
  private async attempt(deliveryId: string): Promise<AttemptResult> {
    const row = await this.dataSource
      .getRepository(WebhookDelivery)
      .createQueryBuilder('d')
      .innerJoin(Webhook, 'w', 'w.id = d.webhookId')
      .select([
        'd.id AS id',
        'd.body AS body',
        'd.webhook_id AS webhook_id',
        'w.url AS url',
        'w.secret_sealed AS secret',
      ])
      .where('d.id = :deliveryId', { deliveryId })
      .getRawOne<{ id: string; body: string; webhook_id: string; url: string; secret: string }>();
    if (!row) throw new Error(`Delivery ${deliveryId} is gone.`);
    const startedAt = new Date();
    let response: OutboundResponse | null = null;
    let error: string | null = null;
    try {
      const secret = this.secrets.open(row.secret, secretContext(row.webhook_id));
      response = await this.http.send(row.url, {
        method: 'POST',
        headers: signatureHeaders(secret, row.id, row.body, startedAt),
        body: row.body,
      });
      if (response.status < 200 || response.status >= 300)
        error = `The endpoint answered HTTP ${response.status}.`;
    } catch (failure) {
      error = (failure instanceof Error ? failure.message : String(failure)).slice(0, 1000);
    }
    const finishedAt = new Date();
    const result: AttemptResult = {
      succeeded: !error,
      statusCode: response?.status ?? null,
      durationMs: response?.durationMs ?? finishedAt.getTime() - startedAt.getTime(),
      error,
    };
    await this.tx.run(async (em) => {
      const attempts = await this.queries.countAttempt(em, row.id, result.statusCode);
      await em.getRepository(WebhookAttempt).insert({
        deliveryId: row.id,
        webhookId: row.webhook_id,
        attemptNumber: attempts,
        status: result.succeeded ? 'succeeded' : 'failed',
        responseCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        startedAt,
        finishedAt,
      });
    });
    return result;
  }

  private announceFailing(
    em: EntityManager,
    webhook: Webhook,
    state: 'failing' | 'disabled',
    failingSince: Date,
    reason: string,
  ): Promise<void> {
    return this.outbox.append(em, {
      type: 'webhook.failing',
      spaceId: webhook.spaceId,
      data: {
        webhook_id: webhook.id,
        space_id: webhook.spaceId,
        url_host: new URL(webhook.url).hostname,
        state,
        failing_since: failingSince.toISOString(),
        reason,
      },
    });
  }

  private async disable(em: EntityManager, webhook: Webhook, reason: string): Promise<void> {
    this.logger.warn(`Disabling webhook ${webhook.id}: ${reason}`);
    await em
      .getRepository(Webhook)
      .update(webhook.id, { isEnabled: false, disabledAt: new Date(), disabledReason: reason });
    await this.announceFailing(em, webhook, 'disabled', webhook.failingSince ?? new Date(), reason);
    const creator = webhook.createdBy ? await this.users.findById(em, webhook.createdBy) : null;
    if (!creator?.isActive) return;
    await this.mailer.enqueue(em, {
      to: creator.email,
      subject: 'A Verity webhook was disabled',
      ...renderMail([
        `Your webhook to ${webhook.url} was disabled. ${reason}`,
        'Fix the endpoint, then enable the webhook again; failed deliveries can be redelivered from the delivery log.',
      ]),
    });
  }
}
