import { CronExpressionParser } from 'cron-parser';

/** The first occurrence of a cron expression strictly after `after`, in the given IANA time zone. */
export function nextOccurrence(cron: string, after: Date, timezone = 'UTC'): Date {
  return CronExpressionParser.parse(cron, { currentDate: after, tz: timezone }).next().toDate();
}

/** Null when the expression is valid, else the parser's reason. */
export function cronError(cron: string): string | null {
  try {
    CronExpressionParser.parse(cron);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
