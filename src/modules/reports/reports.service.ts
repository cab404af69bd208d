import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { NotFound, ValidationFailed } from '../../common/errors/domain-error';
import type { Page } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { JobPayload } from '../../platform/jobs/job-map';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { MailerService } from '../../platform/mail/mailer.service';
import {
  CreateReportDto,
  ListReportsQuery,
  ReportPreviewResponse,
  ReportResponse,
  ReportSentResponse,
  UpdateReportDto,
} from './dto/report.dto';
import { ReportSchedule } from './entities/report-schedule.entity';
import { ReportBuilder } from './report-builder.service';
import { renderHtml, renderText } from './report-render';
import { isTimeZone, nextRunAt, ReportFrequency, ReportType } from './report-schedule';
import { toReportResponse } from './reports.mapper';

const DISPATCH_CRON = 'reports.dispatch-due';
const DISPATCH_JOB = 'reports.dispatch';
const SEND_JOB = 'reports.send-scheduled';

interface Generated {
  subject: string;
  generatedAt: Date;
  text: string;
  html: string;
  csv: string;
  data: Record<string, unknown>;
}

/**
 * Report schedules of a space, their previews and sendings. Scheduled
 * sending: a cron job (once per minute, across replicas) claims the due
 * schedules with SKIP LOCKED, moves each to its next time and enqueues one
 * send job per occurrence (singleton key), which the job runner retries
 * with backoff when generating or enqueueing the mail fails.
 */
@Injectable()
export class ReportsService implements OnModuleInit {
  private readonly logger = new Logger(ReportsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobRunner,
    private readonly mailer: MailerService,
    private readonly builder: ReportBuilder,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(DISPATCH_JOB, () => this.dispatchDue(), { maxAttempts: 3 });
    this.jobs.register(SEND_JOB, (payload) => this.sendScheduled(payload), {
      maxAttempts: 6,
    });
    this.jobs.registerCron(DISPATCH_CRON, '* * * * *', DISPATCH_JOB);
  }

  async create(actor: Actor, access: SpaceAccess, dto: CreateReportDto): Promise<ReportResponse> {
    const timezone = checkTimeZone(dto.timezone ?? 'UTC');
    return this.tx.run(async (em) => {
      const repo = em.getRepository(ReportSchedule);
      const isEnabled = dto.is_enabled ?? true;
      const schedule = await repo.save(
        repo.create({
          spaceId: access.space.id,
          name: dto.name,
          reportType: dto.report_type as ReportType,
          frequency: dto.frequency as ReportFrequency,
          timezone,
          recipients: unique(dto.recipients),
          isEnabled,
          lastSentAt: null,
          nextRunAt: isEnabled ? nextRunAt(dto.frequency as ReportFrequency, timezone, new Date()) : null,
          createdBy: actor.userId,
        }),
      );
      await this.record(em, actor, 'report.created', schedule);
      return toReportResponse(schedule);
    });
  }

  async list(access: SpaceAccess, query: ListReportsQuery): Promise<Page<ReportResponse>> {
    const [schedules, total] = await this.dataSource
      .getRepository(ReportSchedule)
      .createQueryBuilder('r')
      .where('r.spaceId = :spaceId', { spaceId: access.space.id })
      .orderBy('r.createdAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .skip(query.skip ?? 0)
      .take(query.limit ?? 50)
      .getManyAndCount();
    return { items: schedules.map(toReportResponse), total };
  }

  async get(access: SpaceAccess, id: string): Promise<ReportResponse> {
    return toReportResponse(await this.find(this.dataSource.manager, access.space.id, id));
  }

  async update(actor: Actor, access: SpaceAccess, id: string, dto: UpdateReportDto): Promise<ReportResponse> {
    const timezone = dto.timezone === undefined ? undefined : checkTimeZone(dto.timezone);
    return this.tx.run(async (em) => {
      const schedule = await this.find(em, access.space.id, id, true);
      const timing =
        schedule.frequency !== (dto.frequency ?? schedule.frequency) ||
        schedule.timezone !== (timezone ?? schedule.timezone) ||
        schedule.isEnabled !== (dto.is_enabled ?? schedule.isEnabled);
      schedule.name = dto.name ?? schedule.name;
      schedule.reportType = (dto.report_type as ReportType | undefined) ?? schedule.reportType;
      schedule.frequency = (dto.frequency as ReportFrequency | undefined) ?? schedule.frequency;
      schedule.timezone = timezone ?? schedule.timezone;
      schedule.recipients = dto.recipients ? unique(dto.recipients) : schedule.recipients;
      schedule.isEnabled = dto.is_enabled ?? schedule.isEnabled;
      if (timing) {
        schedule.nextRunAt = schedule.isEnabled
          ? nextRunAt(schedule.frequency, schedule.timezone, new Date())
          : null;
      }
      schedule.updatedAt = new Date();
      await em.getRepository(ReportSchedule).save(schedule);
      await this.record(em, actor, 'report.updated', schedule);
      return toReportResponse(schedule);
    });
  }

  async delete(actor: Actor, access: SpaceAccess, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const schedule = await this.find(em, access.space.id, id, true);
      await em.getRepository(ReportSchedule).delete(schedule.id);
      await this.record(em, actor, 'report.deleted', schedule);
    });
  }

  async preview(_actor: Actor, access: SpaceAccess, id: string): Promise<ReportPreviewResponse> {
    const schedule = await this.find(this.dataSource.manager, access.space.id, id);
    const report = await this.generate(schedule);
    return {
      subject: report.subject,
      generated_at: report.generatedAt.toISOString(),
      text: report.text,
      html: report.html,
      data: report.data,
    };
  }

  async send(actor: Actor, access: SpaceAccess, id: string): Promise<ReportSentResponse> {
    const schedule = await this.find(this.dataSource.manager, access.space.id, id);
    const report = await this.generate(schedule);
    await this.tx.run(async (em) => {
      const locked = await this.find(em, access.space.id, id, true);
      await this.mail(em, locked, report);
      await this.record(em, actor, 'report.sent', locked);
    });
    return { sent_to: schedule.recipients, generated_at: report.generatedAt.toISOString() };
  }

  /** Claims the due schedules, moves each to its next time, and enqueues one send per occurrence. */
  private async dispatchDue(): Promise<void> {
    await this.tx.run(async (em) => {
      const due = await em
        .getRepository(ReportSchedule)
        .createQueryBuilder('r')
        .where('r.isEnabled AND r.nextRunAt <= now()')
        .orderBy('r.nextRunAt')
        .limit(500)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const now = new Date();
      for (const schedule of due) {
        const scheduledFor = schedule.nextRunAt!.toISOString();
        await this.jobs.enqueue(
          em,
          SEND_JOB,
          { schedule_id: schedule.id, scheduled_for: scheduledFor },
          { singletonKey: `report:${schedule.id}:${scheduledFor}` },
        );
        // Missed occurrences (the service was down) are not sent one by one: the next is after now.
        await em.getRepository(ReportSchedule).update(schedule.id, {
          nextRunAt: nextRunAt(schedule.frequency, schedule.timezone, now),
        });
      }
    });
  }

  private async sendScheduled(payload: JobPayload<'reports.send-scheduled'>): Promise<void> {
    const schedule = await this.dataSource
      .getRepository(ReportSchedule)
      .findOneBy({ id: payload.schedule_id });
    if (!schedule?.isEnabled) return;
    const report = await this.generate(schedule);
    await this.tx.run(async (em) => {
      const locked = await em
        .getRepository(ReportSchedule)
        .findOne({ where: { id: schedule.id }, lock: { mode: 'pessimistic_write' } });
      if (!locked?.isEnabled) return;
      await this.mail(em, locked, report);
    });
    this.logger.log(`Report ${schedule.id} sent for ${payload.scheduled_for}.`);
  }

  private async generate(schedule: ReportSchedule): Promise<Generated> {
    const generatedAt = new Date();
    const { content, csv } = await this.builder.build(
      schedule.spaceId,
      schedule.reportType,
      schedule.frequency,
      generatedAt,
    );
    return {
      subject: `${schedule.name}: ${content.title} (${generatedAt.toISOString().slice(0, 10)})`,
      generatedAt,
      text: renderText(content, generatedAt, schedule.name),
      html: renderHtml(content, generatedAt, schedule.name),
      csv,
      data: content.data,
    };
  }

  /** One mail per recipient, each with the CSV attached, through the mail outbox; the sending is recorded. */
  private async mail(em: EntityManager, schedule: ReportSchedule, report: Generated): Promise<void> {
    const attachment = {
      filename: `${schedule.reportType}-${report.generatedAt.toISOString().slice(0, 10)}.csv`,
      contentType: 'text/csv; charset=utf-8',
      content: Buffer.from(report.csv, 'utf8').toString('base64'),
    };
    for (const to of schedule.recipients) {
      await this.mailer.enqueue(em, {
        to,
        subject: report.subject,
        text: report.text,
        html: report.html,
        attachments: [attachment],
      });
    }
    await em.getRepository(ReportSchedule).update(schedule.id, { lastSentAt: report.generatedAt });
  }

  private async find(em: EntityManager, spaceId: string, id: string, lock = false): Promise<ReportSchedule> {
    const schedule = await em
      .getRepository(ReportSchedule)
      .findOne({ where: { id, spaceId }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!schedule) throw new NotFound('report schedule', id);
    return schedule;
  }

  private async record(
    em: EntityManager,
    actor: Actor,
    action: string,
    schedule: ReportSchedule,
  ): Promise<void> {
    await this.audit.record(em, actor, {
      action,
      resourceType: 'report_schedule',
      resourceId: schedule.id,
      spaceId: schedule.spaceId,
      details: { name: schedule.name, report_type: schedule.reportType },
    });
  }
}

function checkTimeZone(timezone: string): string {
  if (!isTimeZone(timezone)) {
    throw ValidationFailed.field(
      'timezone',
      `timezone must be an IANA time zone name such as Europe/Berlin; "${timezone}" is not one.`,
    );
  }
  // The runtime's canonical spelling (`utc` -> `UTC`).
  return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
}

function unique(emails: string[]): string[] {
  return [...new Set(emails.map((e) => e.trim().toLowerCase()))];
}
