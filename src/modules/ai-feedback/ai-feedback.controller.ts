import { Readable } from 'node:stream';
import { Body, Controller, Get, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { AiFeedbackService } from './ai-feedback.service';
import {
  AiFeedbackFilterQuery,
  AiFeedbackPageResponse,
  AiFeedbackResponse,
  AiFeedbackStatsResponse,
  CreateAiFeedbackDto,
  ExportAiFeedbackQuery,
  ListAiFeedbackQuery,
} from './dto/ai-feedback.dto';

const FILTERS =
  'Filters combine with AND: `feature`, `rating`, `user_id`, `since` (inclusive) and `until` (exclusive) on `created_at`.';

@ApiTags('AI feedback')
@Controller('ai-feedback')
export class AiFeedbackController {
  constructor(private readonly feedback: AiFeedbackService) {}

  @Post()
  @Authenticated()
  @ApiOperation({
    operationId: 'createAiFeedback',
    summary: 'Give feedback on an AI answer (any signed-in user)',
    description:
      '`feature` is the snake_case name of the AI feature (`alert_explain`, `pipeline_authoring`, `search`, ...). ' +
      '`log_id` names the AI log entry of the answer when the client has it (the explanation answers carry one); it must ' +
      'exist (422 otherwise), and the feedback is kept when the log entry later leaves the AI log retention. ' +
      "`suggestion_id` is free for the client's own reference. The caller is recorded as `user_id`.",
  })
  @ApiCreatedResponse({ type: AiFeedbackResponse })
  @ApiProblems(422)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateAiFeedbackDto): Promise<AiFeedbackResponse> {
    return this.feedback.create(actor, dto);
  }

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiFeedback',
    summary: 'List AI feedback (superadmin)',
    description: `Newest first, \`{items, total, page, size}\` with \`page\` (1-based) and \`size\` (default 50, at most 200). ${FILTERS}`,
  })
  @ApiOkResponse({ type: AiFeedbackPageResponse })
  @ApiProblems(422)
  list(@Query() query: ListAiFeedbackQuery): Promise<AiFeedbackPageResponse> {
    return this.feedback.list(query);
  }

  @Get('stats')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getAiFeedbackStats',
    summary: 'Acceptance rates by feature (superadmin)',
    description:
      'One entry per feature that has feedback, sorted by feature. `acceptance_rate` is a fraction from 0 to 1, ' +
      'rounded to 4 decimals: (accepted + edited) / total, because a suggestion a person edited was still taken up ' +
      `(\`edited\` is also counted on its own). ${FILTERS}`,
  })
  @ApiOkResponse({ type: AiFeedbackStatsResponse, isArray: true })
  @ApiProblems(422)
  stats(@Query() query: AiFeedbackFilterQuery): Promise<AiFeedbackStatsResponse[]> {
    return this.feedback.stats(query);
  }

  @Get('export')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'exportAiFeedback',
    summary: 'Export AI feedback as CSV or JSON (superadmin)',
    description:
      '`format=csv` (the default) or `json`, oldest first, streamed from the database a thousand rows at a time, as a download ' +
      '(`Content-Disposition: attachment; filename="ai-feedback-<date>.<ext>"`). The CSV has a header row with the fields of the ' +
      'feedback record, RFC 4180 quoting, and cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, ' +
      `tab or carriage return) prefixed with a single quote. The JSON is an array of feedback records. ${FILTERS}`,
  })
  @ApiProduces('text/csv', 'application/json')
  @ApiOkResponse({
    description: 'The feedback, as a file.',
    content: {
      'text/csv': { schema: { type: 'string' } },
      'application/json': {
        schema: { type: 'array', items: { $ref: '#/components/schemas/AiFeedbackResponse' } },
      },
    },
  })
  @ApiProblems(422)
  export(@Query() query: ExportAiFeedbackQuery): StreamableFile {
    const file = this.feedback.export(query);
    return new StreamableFile(Readable.from(file.chunks), {
      type: file.contentType,
      disposition: `attachment; filename="${file.fileName}"`,
    });
  }
}
