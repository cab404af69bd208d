import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SendsEncodedJson } from '../../common/http/encoded-json.decorator';
import { PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AiLogsService } from './ai-logs.service';
import {
  AiLogDetailResponse,
  AiLogResponse,
  GuardrailImpactResponse,
  ListAiLogsQuery,
  LogIdParams,
  PeopleUsageResponse,
  ReplayResponse,
  UsageQuery,
  UsageResponse,
} from './dto/ai-logs.dto';
import { PromptDetailResponse } from './dto/prompts.dto';

const LIST =
  'Newest first. Prompts and answers are stored redacted; `attempt` 2 is the call to a fallback profile, in the same `run_id`. ' +
  '`total` is exact: it is summed from the daily usage rollups (which carry every filter of this list and are written ' +
  "with each log, today's included); only the oldest day, which retention may have cut short, is counted in the logs.";
const USAGE =
  'Token usage grouped by UTC date, model and feature, read from the daily rollups (not the logs).';

@ApiTags('AI administration')
@Controller('admin/ai-logs')
export class AiLogsAdminController {
  constructor(private readonly logs: AiLogsService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({ operationId: 'listAdminAiLogs', summary: 'List AI logs', description: LIST })
  @ApiOkResponse({ type: PageOf(AiLogResponse) })
  @ApiProblems(422)
  @SendsEncodedJson()
  list(@Query() query: ListAiLogsQuery): Promise<string> {
    return this.logs.list({ ...query, skip: query.skip ?? 0, limit: query.limit ?? 50 });
  }

  @Get('usage')
  @SuperadminOnly()
  @ApiOperation({ operationId: 'getAdminAiUsage', summary: 'Token usage summary', description: USAGE })
  @ApiOkResponse({ type: UsageResponse })
  @ApiProblems(422)
  @SendsEncodedJson()
  usage(@Query() query: UsageQuery): Promise<string> {
    // The service encodes the report (see AiLogsService.usageDocument); it goes out as it is.
    return this.logs.usageDocument(query.days ?? 30);
  }

  @Get('usage/people')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiUsageByPerson',
    summary: 'Token usage by user',
    description:
      'The 500 heaviest users of the window, most tokens first; `user_id` null gathers calls made without a user.',
  })
  @ApiOkResponse({ type: PeopleUsageResponse })
  @ApiProblems(422)
  people(@Query() query: UsageQuery): Promise<PeopleUsageResponse> {
    return this.logs.people(query.days ?? 30);
  }

  @Get('usage/guardrail-impact')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiGuardrailImpact',
    summary: 'Guardrail impact summary',
    description:
      'How often redaction and injection guardrails acted, by kind and by feature; rates are fractions from 0 to 1.',
  })
  @ApiOkResponse({ type: GuardrailImpactResponse })
  @ApiProblems(422)
  guardrailImpact(@Query() query: UsageQuery): Promise<GuardrailImpactResponse> {
    return this.logs.guardrailImpact(query.days ?? 30);
  }

  @Get(':log_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiLog',
    summary: 'Read one AI log with its redacted messages and answer',
    description:
      'One AI call as logged: the messages sent and the answer, with secrets and personal data redacted, its tokens, cost and outcome.',
  })
  @ApiOkResponse({ type: AiLogDetailResponse })
  @ApiProblems(404, 422)
  get(@Param() params: LogIdParams): Promise<AiLogDetailResponse> {
    return this.logs.get(params.log_id);
  }

  @Post(':log_id/replay')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'replayAiLog',
    summary: 'Replay a logged prompt through the governed path',
    description:
      "Sends the log's stored (redacted) messages again through the gateway: the feature's current route, its budget, the guardrails (injection markers in the stored prompt block it) and a new log entry whose `replay_of` is the original. Provider failures answer 502/504, an exhausted budget 429, with the new log's id in `log_id`.",
  })
  @ApiOkResponse({ type: ReplayResponse })
  @ApiProblems(404, 422, 429, 502, 503, 504)
  replay(@CurrentActor() actor: Actor, @Param() params: LogIdParams): Promise<ReplayResponse> {
    return this.logs.replay(actor.userId, params.log_id);
  }

  @Post(':log_id/save-prompt')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'savePromptFromAiLog',
    summary: 'Save a prompt candidate from a log entry',
    description:
      "Stores the log's system and user messages as a new draft version of its prompt (not active: activate it by creating a version from it).",
  })
  @ApiOkResponse({ type: PromptDetailResponse })
  @ApiProblems(404, 422)
  savePrompt(@CurrentActor() actor: Actor, @Param() params: LogIdParams): Promise<PromptDetailResponse> {
    return this.logs.savePrompt(actor.userId, params.log_id);
  }
}

/** The specification's `/ai-logs` rows: the same records and usage as under /admin. */
@ApiTags('AI logs')
@Controller('ai-logs')
export class AiLogsController {
  constructor(private readonly logs: AiLogsService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({ operationId: 'listAiLogs', summary: 'List AI logs (superadmin)', description: LIST })
  @ApiOkResponse({ type: PageOf(AiLogResponse) })
  @ApiProblems(422)
  @SendsEncodedJson()
  list(@Query() query: ListAiLogsQuery): Promise<string> {
    return this.logs.list({ ...query, skip: query.skip ?? 0, limit: query.limit ?? 50 });
  }

  @Get('usage')
  @SuperadminOnly()
  @ApiOperation({ operationId: 'getAiUsage', summary: 'Token usage (superadmin)', description: USAGE })
  @ApiOkResponse({ type: UsageResponse })
  @ApiProblems(422)
  @SendsEncodedJson()
  usage(@Query() query: UsageQuery): Promise<string> {
    // The service encodes the report (see AiLogsService.usageDocument); it goes out as it is.
    return this.logs.usageDocument(query.days ?? 30);
  }
}
