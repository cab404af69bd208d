import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { EndpointRateLimit } from '../../common/http/rate-limit.decorators';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { CheckRunnerService } from './check-runner.service';
import { ChecksService } from './checks.service';
import {
  CheckIdParams,
  CheckPathParams,
  CheckResponse,
  CheckRunResponse,
  CreateCheckDto,
  ListChecksQuery,
  PushResultDto,
  RunResultResponse,
  UpdateCheckDto,
} from './dto/quality.dto';

@ApiTags('Quality checks')
@Controller('spaces/:slug/quality/checks')
export class ChecksController {
  constructor(private readonly checks: ChecksService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createCheck',
    summary: 'Create a quality check (edit access)',
    description:
      '`product_id` and `connector_id` must belong to the space, `config` must fit the `check_type`, and `schedule_cron` must be a ' +
      'valid five-field cron expression (evaluated in UTC); each problem is a 422 naming the field. A scheduled, enabled check runs ' +
      'at each occurrence (within about a minute), once across replicas.',
  })
  @ApiCreatedResponse({ type: CheckResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateCheckDto,
  ): Promise<CheckResponse> {
    return this.checks.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listChecks',
    summary: 'List the quality checks of a space',
    description: 'Newest first; filters `product_id`, `check_type`; `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(CheckResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListChecksQuery,
  ): Promise<Page<CheckResponse>> {
    return this.checks.list(access, query);
  }

  @Get(':check_id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getCheck',
    summary: 'Get a quality check',
    description:
      'One quality check of the space with its configuration, schedule and the status of its last run.',
  })
  @ApiOkResponse({ type: CheckResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: CheckPathParams): Promise<CheckResponse> {
    return this.checks.get(access, params.check_id);
  }

  @Patch(':check_id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateCheck',
    summary: 'Update a quality check (edit access)',
    description:
      'Only the fields given change; `config` is replaced whole and validated against the check type. The product and type are fixed.',
  })
  @ApiOkResponse({ type: CheckResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: CheckPathParams,
    @Body() dto: UpdateCheckDto,
  ): Promise<CheckResponse> {
    return this.checks.update(actor, access, params.check_id, dto);
  }

  @Delete(':check_id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteCheck',
    summary: 'Delete a quality check (edit access)',
    description: 'Its run history goes with it; alerts it opened stay, without the check.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: CheckPathParams,
  ): Promise<void> {
    await this.checks.delete(actor, access, params.check_id);
  }

  @Get(':check_id/runs')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listCheckRuns',
    summary: 'Run history of a quality check',
    description: 'Newest first, manual, scheduled and pushed alike; `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(CheckRunResponse) })
  @ApiProblems(422)
  runs(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: CheckPathParams,
    @Query() page: PageQuery,
  ): Promise<Page<CheckRunResponse>> {
    return this.checks.runs(access, params.check_id, page);
  }
}

@ApiTags('Quality checks')
@Controller('quality/checks')
export class CheckRunsController {
  constructor(private readonly runner: CheckRunnerService) {}

  @Post(':check_id/run')
  @Authenticated()
  @HttpCode(200)
  @EndpointRateLimit(10)
  @ApiOperation({
    operationId: 'runCheck',
    summary: 'Run a quality check now (edit access to its space; 10 per minute)',
    description:
      "Evaluates the check on its connector's database, read-only, with a statement timeout (10 s, or the check's " +
      '`timeout_seconds`) and a cap of 1,000 rows read. `passed`/`failed` are the verdict; `error` means it could not be evaluated ' +
      '(no connector, unreachable source, missing table, timeout) and opens no alert. A failed run opens an alert, correlated into ' +
      'an incident, and answers its `alert_id`. Emits `quality_check.passed` or `quality_check.failed` (also for `error`, with that ' +
      'status). A `custom` check cannot be run (409): push its results. A check in a space the caller is not in is 404.',
  })
  @ApiOkResponse({ type: RunResultResponse })
  @ApiProblems(403, 404, 409, 422, 429)
  run(@CurrentActor() actor: Actor, @Param() params: CheckIdParams): Promise<RunResultResponse> {
    return this.runner.run(actor, params.check_id);
  }

  @Post(':check_id/results')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'pushCheckResult',
    summary: 'Record a result computed elsewhere (edit access to its space)',
    description:
      'For dbt, Great Expectations and `custom` checks: recorded like a run (source `pushed`); `passed: false` opens an alert. ' +
      'Answers like a run.',
  })
  @ApiOkResponse({ type: RunResultResponse })
  @ApiProblems(403, 404, 422)
  pushResult(
    @CurrentActor() actor: Actor,
    @Param() params: CheckIdParams,
    @Body() dto: PushResultDto,
  ): Promise<RunResultResponse> {
    return this.runner.pushResult(actor, params.check_id, dto);
  }
}
