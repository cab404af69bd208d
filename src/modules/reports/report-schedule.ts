import { nextOccurrence } from '../../platform/jobs/cron';

export const REPORT_TYPES = [
  'compliance_summary',
  'quality_overview',
  'incident_digest',
  'risk_register',
  'policy_violations',
  'catalog_inventory',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export type ReportFrequency = (typeof REPORT_FREQUENCIES)[number];

/** 08:00 every day, every Monday, or on the 1st of the month, in the schedule's time zone. */
const CRON: Record<ReportFrequency, string> = {
  daily: '0 8 * * *',
  weekly: '0 8 * * 1',
  monthly: '0 8 1 * *',
};

/** The first sending time strictly after `after`, DST-correct in `timezone`. */
export function nextRunAt(frequency: ReportFrequency, timezone: string, after: Date): Date {
  return nextOccurrence(CRON[frequency], after, timezone);
}

/** True for an IANA time zone name the runtime knows (e.g. `Europe/Berlin`, `UTC`). */
export function isTimeZone(value: string): boolean {
  if (!value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** How far back a report looks: the period between two sendings. */
export function reportPeriodStart(frequency: ReportFrequency, now: Date): Date {
  const days = frequency === 'daily' ? 1 : frequency === 'weekly' ? 7 : 31;
  return new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
}
