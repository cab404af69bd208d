import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MembershipDirectory } from '../../common/permissions/space-access.port';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { Clock } from '../../platform/clock/clock.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { OutboundResponse, SafeHttpClient } from '../../platform/outbound-http/safe-http.client';
import { DispatchedEvent, OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { NotificationsService } from '../notifications/notifications.service';
import { SpacesService } from '../spaces/spaces.service';
import { ChatChannelQueries } from './chat-channels.queries';
import { messageBody } from './chat-formats';
import {
  ChatEventDraft,
  ChatNotice,
  draftOf,
  fold,
  MAX_PRODUCTS,
  passesMinSeverity,
  SOURCE_EVENTS,
} from './chat-notice';
import { ChatChannel, ChatKind } from './entities/chat-channel.entity';
import { ChatMessage } from './entities/chat-message.entity';

export const DELIVER_JOB = 'chat.deliver';
/** The wait before each retry; a message is attempted at most 1 + 3 times. */
export const CHAT_RETRY_SCHEDULE_MS = [1_000, 5_000, 25_000];
/** The longest `Retry-After` honoured: chat is only worth sending while the news is fresh. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** An incident's events within this long after its last message are folded into the next one. */
export const COALESCE_WINDOW_MS = 60_000;
/** A channel whose last this-many messages failed after their retries is disabled. */
export const FAILURES_TO_DISABLE = 5;
const SEND_TIMEOUT_MS = 10_000;

export const urlContext = (channelId: string) => `chat-channel:${channelId}`;

export interface SendResult {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

/** `Retry-After` in seconds or as an HTTP date, capped at MAX_RETRY_AFTER_MS; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  let wait: number;
  if (/^\d+$/.test(value.trim())) wait = Number(value.trim()) * 1000;
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return null;
    wait = at - now;
  }
  return Math.max(0, Math.min(wait, MAX_RETRY_AFTER_MS));
}

/**
 * Turns outbox events into chat messages for each subscribed channel of the
 * event's space and posts them on the job runner: an incident's events fold
 * into one message per minute, each message is retried three times, and a
 * channel whose last five messages failed is disabled and its space's
 * admins notified (docs/decisions.md#chat-channels).
 */
@Injectable()
export class ChatDeliveriesService implements OnModuleInit {
  private readonly logger = new Logger(ChatDeliveriesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tx: TransactionRunner,
    private readonly dispatcher: OutboxDispatcher,
    private readonly jobs: JobRunner,
    private readonly http: SafeHttpClient,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly spaces: SpacesService,
    private readonly products: ProductDirectoryService,
    private readonly notifications: NotificationsService,
    private readonly membership: MembershipDirectory,
    private readonly queries: ChatChannelQueries,
  ) {}

  onModuleInit(): void {
    for (const type of SOURCE_EVENTS) {
      this.dispatcher.on(type, 'chat-channels', (event, em) => this.fanOut(event, em));
    }
    // One attempt per job: the next is a job of its own, due after the schedule's wait or the Retry-After.
    this.jobs.register(DELIVER_JOB, (payload) => this.deliver(payload.message_id), {
      maxAttempts: 2,
      backoffMs: () => 1_000,
      timeoutMs: 60_000,
    });
  }

  /** The absolute link of a draft's path, under PUBLIC_BASE_URL. */
  link(path: string, slug: string): string {
    return `${this.config.publicBaseUrl}/api/v1.0/${path.replace('{slug}', encodeURIComponent(slug))}`;
  }

  /** Outbox consumer: the event as a message to each subscribed channel, folded into its incident's when due. */
  private async fanOut(event: DispatchedEvent, em: EntityManager): Promise<void> {
    if (!event.spaceId) return;
    const draft = draftOf(event);
    if (!draft) return;
    const channels = (await this.queries.subscribers(em, event.spaceId, draft.type)).filter((channel) =>
      passesMinSeverity(draft.severity, channel.min_severity),
    );
    if (!channels.length) return;
    const notice = await this.noticeOf(em, event.spaceId, draft, event.occurredAt);
    if (!notice) return;
    const key = draft.incidentId ? `incident:${draft.incidentId}` : null;
    for (const channel of channels) await this.post(em, channel.id, key, notice);
  }

  private async noticeOf(
    em: EntityManager,
    spaceId: string,
    draft: ChatEventDraft,
    at: Date,
  ): Promise<ChatNotice | null> {
    const [space] = await this.spaces.summaries(em, { ids: [spaceId] });
    if (!space) return null;
    const named = draft.productIds.length ? await this.products.namesOf(em, draft.productIds, spaceId) : [];
    return {
      event_type: draft.type,
      title: draft.title,
      severity: draft.severity,
      space_name: space.name,
      summary: draft.summary,
      products: [...new Set([...named.map((p) => p.name), ...draft.productNames])].slice(0, MAX_PRODUCTS),
      link: this.link(draft.path, space.slug),
      folded: 0,
      occurred_at: at.toISOString(),
    };
  }

  /**
   * Queues the notice for a channel. With a coalescing key, it folds into the
   * key's message not attempted yet; else a new message is due a minute after
   * the key's previous one (or now).
   */
  private async post(
    em: EntityManager,
    channelId: string,
    coalesceKey: string | null,
    notice: ChatNotice,
  ): Promise<void> {
    const now = this.clock.now();
    let sendAt = new Date(now);
    if (coalesceKey) {
      const pending = await this.queries.lockPending(em, channelId, coalesceKey);
      if (pending) {
        await this.queries.updateNotice(em, pending.id, fold(pending.notice, notice));
        return;
      }
      const latest = await this.queries.latestSendAt(em, channelId, coalesceKey);
      if (latest) sendAt = new Date(Math.max(now, latest.getTime() + COALESCE_WINDOW_MS));
    }
    const id = await this.queries.insertMessage(em, { channelId, coalesceKey, notice, sendAt });
    if (id) {
      await this.enqueue(em, id, 0, sendAt);
      return;
    }
    // Another dispatcher opened the key's message meanwhile: fold into it.
    const pending = coalesceKey ? await this.queries.lockPending(em, channelId, coalesceKey) : null;
    if (pending) await this.queries.updateNotice(em, pending.id, fold(pending.notice, notice));
  }

  private enqueue(em: EntityManager | null, messageId: string, attempt: number, runAt: Date): Promise<void> {
    return this.jobs.enqueue(
      em,
      DELIVER_JOB,
      { message_id: messageId },
      { runAt, singletonKey: `chat-message:${messageId}:${attempt}` },
    );
  }

  /** One attempt of a message; a failure schedules the next or, after the last, counts against the channel. */
  private async deliver(messageId: string): Promise<void> {
    const claimed = await this.tx.run(async (em) => {
      const message = await em
        .getRepository(ChatMessage)
        .findOne({ where: { id: messageId }, lock: { mode: 'pessimistic_write' } });
      if (!message || message.status === 'sent' || message.status === 'failed') return null;
      const channel = await em
        .getRepository(ChatChannel)
        .createQueryBuilder('c')
        .addSelect('c.urlSealed')
        .where('c.id = :id', { id: message.channelId })
        .getOne();
      if (!channel?.isEnabled) {
        await em.getRepository(ChatMessage).update(messageId, { status: 'failed' });
        return null;
      }
      // From here on, later events of the incident open the next message instead of folding into this one.
      await em.getRepository(ChatMessage).update(messageId, { status: 'sending' });
      return { message, channel };
    });
    if (!claimed) return;
    const { message, channel } = claimed;
    const result = await this.send(channel, message.notice, message.id);
    const attempts = message.attempts + 1;
    await this.tx.run(async (em) => {
      const messages = em.getRepository(ChatMessage);
      if (result.success) {
        await messages.update(messageId, {
          status: 'sent',
          attempts,
          sentAt: new Date(this.clock.now()),
          lastStatusCode: result.statusCode,
          lastError: null,
        });
        await em
          .getRepository(ChatChannel)
          .update(channel.id, { consecutiveFailures: 0, failingSince: null });
        return;
      }
      const retry = CHAT_RETRY_SCHEDULE_MS[attempts - 1];
      await messages.update(messageId, {
        status: retry === undefined ? 'failed' : 'sending',
        attempts,
        lastStatusCode: result.statusCode,
        lastError: result.error,
      });
      if (retry !== undefined) {
        const wait = result.retryAfterMs ?? retry;
        await this.enqueue(em, messageId, attempts, new Date(this.clock.now() + wait));
        return;
      }
      const failures = await this.queries.countFailure(em, channel.id, new Date(this.clock.now()));
      if (failures >= FAILURES_TO_DISABLE && channel.isEnabled) await this.disable(em, channel);
    });
  }

  /** One POST of the notice in the channel's format; never throws, never logs the URL. */
  async send(
    channel: Pick<ChatChannel, 'id' | 'kind' | 'urlSealed' | 'urlHost'>,
    notice: ChatNotice,
    messageId: string,
  ): Promise<SendResult> {
    let response: OutboundResponse;
    try {
      const url = this.secrets.open(channel.urlSealed, urlContext(channel.id));
      response = await this.http.send(url, {
        method: 'POST',
        kind: 'chat',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: messageBody(channel.kind, notice, messageId),
        timeoutMs: SEND_TIMEOUT_MS,
      });
    } catch (failure) {
      // Errors name the host at most: the URL (its path is the credential) must not reach answers or logs.
      const raw = failure instanceof Error ? failure.message : String(failure);
      return { success: false, statusCode: null, error: redact(raw, channel.urlHost), retryAfterMs: null };
    }
    const ok = response.status >= 200 && response.status < 300;
    return {
      success: ok,
      statusCode: response.status,
      error: ok ? null : `The ${platformName(channel.kind)} webhook answered HTTP ${response.status}.`,
      retryAfterMs: ok ? null : retryAfterMs(response.headers['retry-after'], this.clock.now()),
    };
  }

  private async disable(em: EntityManager, channel: ChatChannel): Promise<void> {
    this.logger.warn(
      `Disabling chat channel ${channel.id}: its last ${FAILURES_TO_DISABLE} messages failed.`,
    );
    await em.getRepository(ChatChannel).update(channel.id, { isEnabled: false });
    const admins = await this.queries.spaceAdminIds(
      em,
      channel.spaceId,
      this.membership.memberOfSql('u.id', { spaceParam: 'chatSpaceId', roleParam: 'chatRole' }),
    );
    await this.notifications.notify(em, {
      recipients: admins,
      type: 'chat_channel_disabled',
      title: `Chat channel ${channel.name} was disabled`,
      message:
        `The ${platformName(channel.kind)} channel "${channel.name}" (${channel.urlHost}) was disabled: ` +
        `its last ${FAILURES_TO_DISABLE} messages failed. Check the webhook, send a test, then enable it again.`,
      data: { chat_channel_id: channel.id, space_id: channel.spaceId },
    });
  }
}

export function platformName(kind: ChatKind): string {
  return { slack: 'Slack', teams: 'Microsoft Teams', google_chat: 'Google Chat' }[kind];
}

/** A transport error with anything URL-like beyond the host removed. */
function redact(message: string, host: string): string {
  return message
    .replace(/https?:\/\/[^\s]+/gi, `https://${host}/…`)
    .replace(/\/[^\s]*\/[^\s]*/g, '/…')
    .slice(0, 500);
}
