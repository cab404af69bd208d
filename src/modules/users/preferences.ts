/** Every preference with its default; stored rows hold only what the user changed. */
export const DIGEST_OPTIONS = ['immediate', 'hourly', 'daily', 'weekly', 'none'] as const;
export const THEMES = ['light', 'dark', 'system'] as const;

export interface Preferences {
  notifications: {
    email_alerts: boolean;
    email_digest: (typeof DIGEST_OPTIONS)[number];
    slack_enabled: boolean;
    quality_alerts: boolean;
    access_requests: boolean;
    meeting_reminders: boolean;
    email_enabled: boolean;
  };
  ui: {
    theme: (typeof THEMES)[number];
    default_space: string | null;
    compact_mode: boolean;
    timezone: string;
  };
}

export const DEFAULT_PREFERENCES: Preferences = {
  notifications: {
    email_alerts: true,
    email_digest: 'immediate',
    slack_enabled: false,
    quality_alerts: true,
    access_requests: true,
    meeting_reminders: true,
    email_enabled: true,
  },
  ui: { theme: 'system', default_space: null, compact_mode: false, timezone: 'UTC' },
};

export function withDefaults(
  stored: Record<string, Record<string, unknown>> | null | undefined,
): Preferences {
  return {
    notifications: { ...DEFAULT_PREFERENCES.notifications, ...(stored?.notifications ?? {}) },
    ui: { ...DEFAULT_PREFERENCES.ui, ...(stored?.ui ?? {}) },
  } as Preferences;
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
