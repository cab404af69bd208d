import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AiOpsService } from './ai-ops.service';
import {
  AiOverviewResponse,
  ListWorkflowRunsQuery,
  RunIdParams,
  WorkflowRunDetailResponse,
  WorkflowRunResponse,
} from './dto/ai-ops.dto';

@ApiTags('AI administration')
@Controller('admin')
export class AiOpsController {
  constructor(private readonly ops: AiOpsService) {}

  @Get('ai-ops/overview')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiOpsOverview',
    summary: 'Health, usage, failures, guardrails and budgets at a glance',
    description:
      'Provider health from the latest calls, call and guardrail counts over the last 24 hours (logs) and 7 days (rollups), budget use as ratios, and remediation hints as sentences.',
  })
  @ApiOkResponse({ type: AiOverviewResponse })
  overview(): Promise<AiOverviewResponse> {
    return this.ops.overview();
  }

  @Get('ai-workflow-runs')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiWorkflowRuns',
    summary: 'List workflow run traces',
    description: 'A run groups the gateway calls of one feature invocation. Newest first.',
  })
  @ApiOkResponse({ type: PageOf(WorkflowRunResponse) })
  @ApiProblems(422)
  listRuns(@Query() query: ListWorkflowRunsQuery): Promise<Page<WorkflowRunResponse>> {
    return this.ops.listRuns({ ...query, skip: query.skip ?? 0, limit: query.limit ?? 50 });
  }

  @Get('ai-workflow-runs/:run_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiWorkflowRun',
    summary: 'Read one workflow run trace',
    description:
      'Its gateway calls in order, each with its spans: route, prompt, budget, guardrails, provider and log, with durations.',
  })
  @ApiOkResponse({ type: WorkflowRunDetailResponse })
  @ApiProblems(404, 422)
  getRun(@Param() params: RunIdParams): Promise<WorkflowRunDetailResponse> {
    return this.ops.getRun(params.run_id);
  }
}
