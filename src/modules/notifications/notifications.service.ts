import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { jsonValue } from '../../database/json-column';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import { MailerService } from '../../platform/mail/mailer.service';
import { escapeHtml, renderMail } from '../../platform/mail/templates';
import { withDefaults } from '../users/preferences';
import { UserDirectoryService } from '../users/user-directory.service';
import {
  ListNotificationsQuery,
  MarkAllReadResponse,
  NotificationListResponse,
  NotificationResponse,
  UnreadCountResponse,
} from './dto/notification.dto';
import { planEmail } from './email-plan';
import { NotificationCounter } from './entities/notification-counter.entity';
import { Notification } from './entities/notification.entity';
import { NotificationQueries } from './notifications.queries';
import { NotificationDataMap, NotificationType } from './notification-types';

export interface NewNotification<T extends NotificationType> {
  recipients: string[];
  type: T;
  title: string;
  message: string;
  data: NotificationDataMap[T];
}

const DIGEST_JOB = 'notifications.digest';

export function toNotificationResponse(n: Notification): NotificationResponse {
  return {
    id: n.id,
    type: n.type,
    title: n.title,
    message: n.message,
    read: n.read,
    data: n.data,
    created_at: n.createdAt.toISOString(),
  };
}

/** The topic a live stream of `userId` listens to. */
export const streamTopic = (userId: string) => `notifications:${userId}`;

/**
 * In-platform notifications, and their emails according to each recipient's
 * preferences. Producers in other modules call `notify` inside their own
 * transaction (usually an outbox consumer's), so a notification exists
 * exactly when the change that caused it does.
 */
@Injectable()
export class NotificationsService implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectRepository(Notification) private readonly notifications: Repository<Notification>,
    @InjectRepository(NotificationCounter) private readonly counters: Repository<NotificationCounter>,
    private readonly tx: TransactionRunner,
    private readonly users: UserDirectoryService,
    private readonly mailer: MailerService,
    private readonly jobs: JobRunner,
    private readonly wakeup: Wakeup,
    private readonly queries: NotificationQueries,
  ) {}

  onModuleInit(): void {
    this.jobs.register(DIGEST_JOB, (payload) => this.sendDigest(payload.user_id), {
      maxAttempts: 5,
    });
  }

  /** Notifies each recipient once; inactive and unknown users are skipped. Answers how many were notified. */
  async notify<T extends NotificationType>(
    em: EntityManager,
    notification: NewNotification<T>,
  ): Promise<number> {
    const recipients = (await this.users.findByIds(em, [...new Set(notification.recipients)])).filter(
      (user) => user.isActive,
    );
    if (!recipients.length) return 0;
    const now = new Date();
    const plans = recipients.map((user) => ({
      user,
      plan: planEmail(withDefaults(user.preferences), notification.type, now),
    }));
    // Every recipient's notification and its count in one statement.
    await this.queries.insertMany(
      em,
      plans.map(({ user, plan }) => ({
        user_id: user.id,
        type: notification.type,
        title: notification.title,
        message: notification.message,
        data: jsonValue(notification.data as Record<string, unknown>),
        email_status: plan.status,
      })),
    );
    for (const { user, plan } of plans) {
      if (plan.status === 'queued') {
        await this.mailer.enqueue(em, {
          to: user.email,
          subject: notification.title,
          ...renderMail([notification.message], { label: 'Open Verity', url: this.config.publicBaseUrl }),
        });
      } else if (plan.status === 'digest') {
        await this.jobs.enqueue(
          em,
          DIGEST_JOB,
          { user_id: user.id },
          { runAt: plan.sendAt, singletonKey: `digest:${user.id}` },
        );
      }
      this.wakeup.signal(em, streamTopic(user.id));
    }
    return plans.length;
  }

  async list(actor: Actor, query: ListNotificationsQuery): Promise<NotificationListResponse> {
    const page = query.page ?? 1;
    const size = query.size ?? 20;
    const qb = this.notifications
      .createQueryBuilder('n')
      .where('n.userId = :userId', { userId: actor.userId });
    if (query.unread_only) qb.andWhere('n.read = false');
    if (query.type) qb.andWhere('n.type = :type', { type: query.type });
    const rows = await qb
      .orderBy('n.createdAt', 'DESC')
      .addOrderBy('n.id', 'DESC')
      .offset((page - 1) * size)
      .limit(size)
      .getMany();
    return {
      items: rows.map(toNotificationResponse),
      total: await this.countOf(actor.userId, query),
      page,
      size,
    };
  }

  /** The list's total from the counters: a few rows instead of counting every notification. */
  private async countOf(userId: string, query: ListNotificationsQuery): Promise<number> {
    const qb = this.counters
      .createQueryBuilder('c')
      .select(query.unread_only ? 'COALESCE(SUM(c.unread), 0)' : 'COALESCE(SUM(c.total), 0)', 'count')
      .where('c.userId = :userId', { userId });
    if (query.type) qb.andWhere('c.type = :type', { type: query.type });
    const row = await qb.getRawOne<{ count: string }>();
    return Number(row?.count ?? 0);
  }

  /** Notifications of `userId` created after `since`, oldest first (for live streams). */
  newerThan(userId: string, since: Date): Promise<Notification[]> {
    return this.notifications
      .createQueryBuilder('n')
      .where('n.userId = :userId AND n.createdAt > :since', { userId, since })
      .orderBy('n.createdAt', 'ASC')
      .take(100)
      .getMany();
  }

  /** One statement: the read state and the user's unread count move together, only when the state changes. */
  async setRead(actor: Actor, id: string, read: boolean): Promise<NotificationResponse> {
    const result = await this.queries.setRead(this.notifications.manager, actor.userId, id, read);
    // Someone else's notification is as missing as a deleted one.
    if (!result) throw new NotFound('notification', id);
    if (result.changed) this.wakeup.signal(null, streamTopic(actor.userId));
    const { row } = result;
    return {
      id: row.id,
      type: row.type,
      title: row.title,
      message: row.message,
      read: row.read,
      data: row.data,
      created_at: row.created_at.toISOString(),
    };
  }

  async markAllRead(actor: Actor, type: string | undefined): Promise<MarkAllReadResponse> {
    const marked = await this.queries.markAllRead(this.notifications.manager, actor.userId, type);
    if (marked) this.wakeup.signal(null, streamTopic(actor.userId));
    return { marked_read: marked };
  }

  async unreadCount(userId: string): Promise<UnreadCountResponse> {
    const rows = await this.queries.unreadByType(this.notifications.manager, userId);
    const byType: Record<string, number> = {};
    let count = 0;
    for (const row of rows) {
      byType[row.type] = row.unread;
      count += row.unread;
    }
    return { count, by_type: byType };
  }

  /** One email with every notification waiting for this user's digest. */
  private async sendDigest(userId: string): Promise<void> {
    await this.tx.run(async (em) => {
      const pending = await em
        .getRepository(Notification)
        .createQueryBuilder('n')
        .where(`n.userId = :userId AND n.emailStatus = 'digest'`, { userId })
        .orderBy('n.createdAt', 'ASC')
        .setLock('pessimistic_write')
        .getMany();
      const user = await this.users.findById(em, userId);
      if (!pending.length || !user) return;
      await em
        .getRepository(Notification)
        .createQueryBuilder()
        .update()
        .set({ emailStatus: 'sent_in_digest' })
        .whereInIds(pending.map((n) => n.id))
        .execute();
      if (!user.isActive) return;
      const count = pending.length;
      const lines = pending.map((n) => `• ${n.title}: ${n.message}`);
      const { text } = renderMail(
        [`You have ${count} new notification${count === 1 ? '' : 's'}.`, ...lines],
        {
          label: 'Open Verity',
          url: this.config.publicBaseUrl,
        },
      );
      const items = pending
        .map((n) => `<li><strong>${escapeHtml(n.title)}</strong>: ${escapeHtml(n.message)}</li>`)
        .join('');
      const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5"><p>You have ${count} new notification${count === 1 ? '' : 's'}.</p><ul>${items}</ul><p><a href="${escapeHtml(this.config.publicBaseUrl)}">Open Verity</a></p></body></html>`;
      await this.mailer.enqueue(em, {
        to: user.email,
        subject: `Verity digest: ${count} new notification${count === 1 ? '' : 's'}`,
        text,
        html,
      });
    });
  }
}
