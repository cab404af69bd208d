import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { AuthoringTasksService } from './authoring-tasks.service';
import {
  AuthoringTaskResponse,
  ConsentRequiredResponse,
  CreateAuthoringTaskDto,
  EvidenceListResponse,
  ReplayDto,
  TaskPathParams,
  WebSearchDto,
  WebSearchResponse,
} from './dto/authoring.dto';
import { WebResearchService } from './web-research.service';

@ApiTags('Pipeline authoring')
@Controller('spaces/:slug/ai/authoring-tasks')
export class AuthoringTasksController {
  constructor(
    private readonly tasks: AuthoringTasksService,
    private readonly research: WebResearchService,
  ) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createAuthoringTask',
    summary: 'Start a pipeline-authoring task (edit access)',
    description:
      'A task is what the web-search quota (6 successful distinct searches), consent scope and evidence belong to. ' +
      '`definition_id` is an opaque uuid naming the pipeline definition being authored (not looked up). With ' +
      '`parent_task_id` (a task of the same space, else 404) the task is `delegated` (a worker or subagent): its ' +
      "`root_task_id` is the parent's root, and it may not search the web. Without one, the task is its own root.",
  })
  @ApiCreatedResponse({ type: AuthoringTaskResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateAuthoringTaskDto,
  ): Promise<AuthoringTaskResponse> {
    return this.tasks.create(actor, access, dto);
  }

  @Get(':id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'getAuthoringTask',
    summary: 'Get a pipeline-authoring task with its web-search quota (edit access)',
    description:
      'One pipeline-authoring task of the space with its web-search quota: the searches used and remaining.',
  })
  @ApiOkResponse({ type: AuthoringTaskResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: TaskPathParams): Promise<AuthoringTaskResponse> {
    return this.tasks.get(access, params.id);
  }

  @Post(':id/web-search')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'searchWebForAuthoringTask',
    summary: 'Search the public web for a pipeline-authoring task (edit access)',
    description:
      "The `pipeline_authoring_web_search` facade over the space's bound `web_search` tool. In order: a delegated task " +
      'gets 403; a query carrying credentials, a secret-looking token or personal data gets 422 (never sent or stored); ' +
      'a capability that is not ready gets 409 naming every reason. Without an active grant for the scope (you, the ' +
      "space, the task's definition and root task, the binding and its provider) it answers **202** with a pending " +
      'consent and contacts nothing: readiness is then checked without the health probe, so no provider process is ' +
      'started (a failing probe shows once a grant exists); asking again reuses that consent until it is decided or lapses (24 h). With a grant: ' +
      'a query repeated after normalising case and whitespace answers the stored evidence (`reused: true`, no quota, ' +
      'no provider call; at most `max_results` of the stored items); otherwise a live call, at most 6 successful distinct ' +
      'calls per task (the 7th distinct query gets 409 naming the limit: a quota, not a rate limit, so no Retry-After) and ' +
      '8 results per call. Results are validated: private or non-HTTPS URLs and items carrying secret-looking tokens are ' +
      'dropped, personal data in titles and snippets is redacted, an answer that is not a JSON `results` list or larger ' +
      'than 256 KB is refused whole (502, no quota used), as is a tool error or time-out (502). Only normalised ' +
      'evidence is stored, never the raw answer. Every live call and reuse is written to the AI log with its workflow run.',
  })
  @ApiOkResponse({ type: WebSearchResponse })
  @ApiAcceptedResponse({
    type: ConsentRequiredResponse,
    description: 'Consent is needed first; nothing was contacted.',
  })
  @ApiProblems(403, 409, 422, 502)
  async search(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: TaskPathParams,
    @Body() dto: WebSearchDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebSearchResponse | ConsentRequiredResponse> {
    const outcome = await this.research.search(actor, access, params.id, dto);
    if (outcome.kind === 'consent') res.status(202);
    return outcome.body;
  }

  @Get(':id/evidence')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'listAuthoringTaskEvidence',
    summary: 'List the web-search evidence of a task (edit access)',
    description:
      'One entry per successful distinct live search, oldest first: the sanitised query and the normalised results ' +
      '(never the raw provider answer).',
  })
  @ApiOkResponse({ type: EvidenceListResponse })
  @ApiProblems(422)
  evidence(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: TaskPathParams,
  ): Promise<EvidenceListResponse> {
    return this.research.listEvidence(access, params.id);
  }

  @Post(':id/replay')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'replayAuthoringTaskSearch',
    summary: 'Replay an earlier web search of a task from its evidence (edit access)',
    description:
      'Body: exactly one of `evidence_id` (an evidence entry of this task) or `query` (a query this task searched, ' +
      'matched after normalising case and whitespace); 404 when there is no such evidence. Answers like a search with ' +
      '`reused: true`, from the stored evidence only: it never calls the provider, needs no consent or ready capability, ' +
      'uses no quota, and is allowed to delegated tasks. Logged in the AI log like a reuse.',
  })
  @ApiOkResponse({ type: WebSearchResponse })
  @ApiProblems(404, 422)
  replay(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: TaskPathParams,
    @Body() dto: ReplayDto,
  ): Promise<WebSearchResponse> {
    return this.research.replay(actor, access, params.id, dto);
  }
}
