import { Injectable, MessageEvent } from '@nestjs/common';
import { Observable } from 'rxjs';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import { NotificationsService, streamTopic, toNotificationResponse } from './notifications.service';

const HEARTBEAT_MS = 25_000;

/**
 * One live stream per open connection: woken by the user's topic (which
 * crosses replicas on PostgreSQL), it sends what is new since the last
 * notification it sent, then the fresh unread count.
 */
@Injectable()
export class NotificationStream {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly wakeup: Wakeup,
  ) {}

  open(userId: string): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      let since = new Date();
      let busy: Promise<void> = Promise.resolve();
      const push = async (withNew: boolean) => {
        if (withNew) {
          for (const notification of await this.notifications.newerThan(userId, since)) {
            since = notification.createdAt;
            subscriber.next({
              type: 'notification',
              id: notification.id,
              data: toNotificationResponse(notification),
            });
          }
        }
        subscriber.next({ type: 'unread_count', data: await this.notifications.unreadCount(userId) });
      };
      const queue = (withNew: boolean) => {
        busy = busy.then(() => push(withNew)).catch((error: unknown) => subscriber.error(error));
      };
      queue(false);
      const unsubscribe = this.wakeup.on(streamTopic(userId), () => queue(true));
      // Keeps proxies from closing an idle stream.
      const heartbeat = setInterval(() => subscriber.next({ type: 'heartbeat', data: '' }), HEARTBEAT_MS);
      return () => {
        unsubscribe();
        clearInterval(heartbeat);
      };
    });
  }
}
