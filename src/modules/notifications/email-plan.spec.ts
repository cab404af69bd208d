import { DEFAULT_PREFERENCES, Preferences } from '../users/preferences';
import { planEmail } from './email-plan';

function prefs(notifications: Partial<Preferences['notifications']>, timezone = 'UTC'): Preferences {
  return {
    notifications: { ...DEFAULT_PREFERENCES.notifications, ...notifications },
    ui: { ...DEFAULT_PREFERENCES.ui, timezone },
  };
}

// Sunday 22 November 2026, 14:20 UTC.
const now = new Date('2026-11-22T14:20:00Z');

describe('planEmail', () => {
  it('queues at once by default', () => {
    expect(planEmail(prefs({}), 'quality_alert', now)).toEqual({ status: 'queued' });
  });

  it.each([
    [{ email_enabled: false }],
    [{ email_alerts: false }],
    [{ email_digest: 'none' as const }],
    [{ quality_alerts: false }],
  ])('sends nothing with %o', (notifications) => {
    expect(planEmail(prefs(notifications), 'quality_alert', now)).toEqual({ status: 'skipped' });
  });

  it('applies a category switch only to its own types', () => {
    expect(planEmail(prefs({ access_requests: false }), 'access_submitted', now).status).toBe('skipped');
    expect(planEmail(prefs({ access_requests: false }), 'quality_alert', now).status).toBe('queued');
    expect(planEmail(prefs({ access_requests: false }), 'issue_assigned', now).status).toBe('queued');
  });

  it('sends hourly digests at the next full hour', () => {
    expect(planEmail(prefs({ email_digest: 'hourly' }), 'quality_alert', now)).toEqual({
      status: 'digest',
      sendAt: new Date('2026-11-22T15:00:00Z'),
    });
  });

  it("sends daily digests at 09:00 in the user's time zone", () => {
    // 09:00 in Berlin (UTC+1 in November) is 08:00 UTC; today's has passed.
    expect(planEmail(prefs({ email_digest: 'daily' }, 'Europe/Berlin'), 'quality_alert', now)).toEqual({
      status: 'digest',
      sendAt: new Date('2026-11-23T08:00:00Z'),
    });
    // In Los Angeles it is 06:20, so today's 09:00 (17:00 UTC) is still ahead.
    expect(planEmail(prefs({ email_digest: 'daily' }, 'America/Los_Angeles'), 'quality_alert', now)).toEqual({
      status: 'digest',
      sendAt: new Date('2026-11-22T17:00:00Z'),
    });
  });

  it('sends weekly digests on Monday at 09:00 local time, half-hour zones included', () => {
    expect(planEmail(prefs({ email_digest: 'weekly' }, 'Asia/Kolkata'), 'quality_alert', now)).toEqual({
      status: 'digest',
      sendAt: new Date('2026-11-23T03:30:00Z'),
    });
  });

  it('follows daylight saving time', () => {
    const summer = new Date('2026-07-01T00:00:00Z');
    expect(planEmail(prefs({ email_digest: 'daily' }, 'Europe/Berlin'), 'quality_alert', summer)).toEqual({
      status: 'digest',
      sendAt: new Date('2026-07-01T07:00:00Z'),
    });
  });
});
