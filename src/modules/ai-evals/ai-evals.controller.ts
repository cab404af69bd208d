import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AiEvalsService } from './ai-evals.service';
import { EvalRunDetailResponse, EvalRunParams, EvalRunResponse, StartEvalRunDto } from './dto/ai-evals.dto';

@ApiTags('AI evaluations')
@Controller('admin/ai-evals')
export class AiEvalsController {
  constructor(private readonly evals: AiEvalsService) {}

  @Post('run')
  @SuperadminOnly()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'startAiEvalRun',
    summary: 'Start a run of the deterministic eval suite (superadmin)',
    description:
      'Answers 202 at once with the queued run; a background job then sends every case (fixed inputs per AI feature, ' +
      'defined in the code base) through the AI gateway, so each call is routed, budgeted, redacted and logged like any ' +
      'other, and checks the expected properties of each answer by code: the JSON shape, confidences from 0 to 1, ' +
      'evidence that cites the facts given, no personal data in the answer, injected instructions not obeyed (a blocked ' +
      'input passes that check). A refused call (budget, guardrail, provider error) is a failed case, not a failed run. ' +
      'Progress (`done`, `passed`, `failed` of `total`) is visible on the run while it goes. `features` limits the run ' +
      "to those features' cases. Runs may overlap. Written to the audit log.",
  })
  @ApiAcceptedResponse({ type: EvalRunResponse })
  @ApiProblems(422)
  start(@CurrentActor() actor: Actor, @Body() dto: StartEvalRunDto): Promise<EvalRunResponse> {
    return this.evals.start(actor, dto);
  }

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiEvalRuns',
    summary: 'List eval runs (superadmin)',
    description: 'Newest first, `{items, total}` with `skip` and `limit` (default 50, at most 200).',
  })
  @ApiOkResponse({ type: PageOf(EvalRunResponse) })
  @ApiProblems(422)
  list(@Query() query: PageQuery): Promise<Page<EvalRunResponse>> {
    return this.evals.list(query);
  }

  @Get('latest')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getLatestAiEvalRun',
    summary: 'The latest eval run, as a summary (superadmin)',
    description:
      'The most recently started run, whatever its status (so a run in progress shows its progress). 404 when none exists.',
  })
  @ApiOkResponse({ type: EvalRunResponse })
  @ApiProblems(404)
  latest(): Promise<EvalRunResponse> {
    return this.evals.latest();
  }

  @Get(':run_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiEvalRun',
    summary: 'An eval run with its per-case results (superadmin)',
    description:
      'Each finished case: `case_id`, `feature`, `passed`, the `failures` (properties that did not hold), the AI `log_id` and `latency_ms`.',
  })
  @ApiOkResponse({ type: EvalRunDetailResponse })
  @ApiProblems(404, 422)
  get(@Param() params: EvalRunParams): Promise<EvalRunDetailResponse> {
    return this.evals.get(params.run_id);
  }
}
