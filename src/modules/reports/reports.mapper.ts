import { ReportResponse } from './dto/report.dto';
import type { ReportSchedule } from './entities/report-schedule.entity';

export function toReportResponse(schedule: ReportSchedule): ReportResponse {
  return {
    id: schedule.id,
    space_id: schedule.spaceId,
    name: schedule.name,
    report_type: schedule.reportType,
    frequency: schedule.frequency,
    timezone: schedule.timezone,
    recipients: schedule.recipients,
    is_enabled: schedule.isEnabled,
    last_sent_at: schedule.lastSentAt?.toISOString() ?? null,
    next_run_at: schedule.nextRunAt?.toISOString() ?? null,
    created_by: schedule.createdBy,
    created_at: schedule.createdAt.toISOString(),
    updated_at: schedule.updatedAt.toISOString(),
  };
}
