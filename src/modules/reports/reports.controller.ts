import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import {
  CreateReportDto,
  ListReportsQuery,
  ReportPageResponse,
  ReportPathParams,
  ReportPreviewResponse,
  ReportResponse,
  ReportSentResponse,
  UpdateReportDto,
} from './dto/report.dto';
import { ReportsService } from './reports.service';

const TYPES_DOC =
  'Report types: `compliance_summary` (compliance with the enabled policies, per policy), `quality_overview` (checks by ' +
  'last status, open alerts, failing checks), `incident_digest` (incidents opened in the last period — 1, 7 or 31 days by ' +
  'frequency — and every incident still open), `risk_register` (every risk, highest score first), `policy_violations` ' +
  '(every current violation of an enabled policy), `catalog_inventory` (every product with its classification and owners).';

@ApiTags('Reports')
@Controller('spaces/:slug/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createReport',
    summary: 'Create a report schedule (edit access)',
    description:
      `${TYPES_DOC} Sent at 08:00 in \`timezone\` (default UTC): \`daily\`, \`weekly\` on Monday, \`monthly\` on the 1st; ` +
      '`next_run_at` is the next such time (DST-correct), null while disabled. Scheduled reports go out within a minute of ' +
      'that time, once whatever the number of replicas; a failed sending is retried.',
  })
  @ApiCreatedResponse({ type: ReportResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateReportDto,
  ): Promise<ReportResponse> {
    return this.reports.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listReports',
    summary: 'List the report schedules of a space',
    description: 'Newest first; `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: ReportPageResponse })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListReportsQuery,
  ): Promise<ReportPageResponse> {
    return this.reports.list(access, query);
  }

  @Get(':id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getReport',
    summary: 'Get a report schedule',
    description: 'One report schedule of the space with its recipients, last sending and next run.',
  })
  @ApiOkResponse({ type: ReportResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: ReportPathParams): Promise<ReportResponse> {
    return this.reports.get(access, params.id);
  }

  @Patch(':id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateReport',
    summary: 'Update a report schedule (edit access)',
    description: 'Partial. A change of frequency, time zone or enabled state recomputes `next_run_at`.',
  })
  @ApiOkResponse({ type: ReportResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ReportPathParams,
    @Body() dto: UpdateReportDto,
  ): Promise<ReportResponse> {
    return this.reports.update(actor, access, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteReport',
    summary: 'Delete a report schedule (edit access)',
    description:
      'Deletes the report schedule: nothing more is sent; 404 when the space has no such schedule.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ReportPathParams,
  ): Promise<void> {
    return this.reports.delete(actor, access, params.id);
  }

  @Get(':id/preview')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'previewReport',
    summary: 'Generate the report now without sending it',
    description:
      'The mail body lists at most 100 rows; `data` holds the report data (for `catalog_inventory`, the totals and the ' +
      'first 100 products). Nothing is sent.',
  })
  @ApiOkResponse({ type: ReportPreviewResponse })
  @ApiProblems(422)
  preview(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ReportPathParams,
  ): Promise<ReportPreviewResponse> {
    return this.reports.preview(actor, access, params.id);
  }

  @Post(':id/send')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'sendReport',
    summary: 'Generate the report and mail it to every recipient now (edit access)',
    description:
      'One mail per recipient with an HTML and a text part and every row as a CSV attachment, through the mail outbox ' +
      '(delivered after commit, retried on SMTP failure). Sends even when the schedule is disabled; `next_run_at` is kept.',
  })
  @ApiOkResponse({ type: ReportSentResponse })
  @ApiProblems(422)
  send(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ReportPathParams,
  ): Promise<ReportSentResponse> {
    return this.reports.send(actor, access, params.id);
  }
}
