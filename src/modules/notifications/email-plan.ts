import { nextOccurrence } from '../../platform/jobs/cron';
import type { Preferences } from '../users/preferences';
import { EMAIL_CATEGORY, NotificationType } from './notification-types';

const DIGEST_CRON = { hourly: '0 * * * *', daily: '0 9 * * *', weekly: '0 9 * * 1' } as const;

export type EmailPlan = { status: 'queued' } | { status: 'skipped' } | { status: 'digest'; sendAt: Date };

/**
 * How a notification reaches a user's mailbox, by their preferences: not at
 * all (email off, the type's category off, or `none`), at once
 * (`immediate`), or in the next hourly, daily (09:00) or weekly (Monday
 * 09:00) digest in their own time zone.
 */
export function planEmail(preferences: Preferences, type: NotificationType, now: Date): EmailPlan {
  const { notifications } = preferences;
  if (!notifications.email_enabled || !notifications.email_alerts) return { status: 'skipped' };
  const category = EMAIL_CATEGORY[type];
  if (category && !notifications[category]) return { status: 'skipped' };
  switch (notifications.email_digest) {
    case 'none':
      return { status: 'skipped' };
    case 'immediate':
      return { status: 'queued' };
    default:
      return {
        status: 'digest',
        sendAt: nextOccurrence(DIGEST_CRON[notifications.email_digest], now, preferences.ui.timezone),
      };
  }
}
