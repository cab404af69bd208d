import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreatedPromptVersionResponse,
  CreatePromptVersionDto,
  PreviewPromptDto,
  PromptDetailResponse,
  PromptKeyParams,
  PromptPreviewResponse,
  PromptSummaryResponse,
} from './dto/prompts.dto';
import { PromptsService } from './prompts.service';

@ApiTags('AI administration')
@Controller('admin/prompts')
export class PromptsController {
  constructor(private readonly prompts: PromptsService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listPrompts',
    summary: 'List prompt definitions',
    description:
      "Every prompt defined in code, with the version in use (0 = the code default). Stored versions belong to the caller's instance (its database): an instance without one uses the code default, never another instance's version. Sorted by `prompt_key`; `{items, total}` with `skip`/`limit`.",
  })
  @ApiOkResponse({ type: PageOf(PromptSummaryResponse) })
  @ApiProblems(422)
  list(@Query() page: PageQuery): Promise<Page<PromptSummaryResponse>> {
    return this.prompts.list(page);
  }

  @Get(':prompt_key')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getPrompt',
    summary: 'Read a prompt with its versions',
    description: 'One prompt with its variables, its active version and every version.',
  })
  @ApiOkResponse({ type: PromptDetailResponse })
  @ApiProblems(404, 422)
  get(@Param() params: PromptKeyParams): Promise<PromptDetailResponse> {
    return this.prompts.get(params.prompt_key);
  }

  @Post(':prompt_key/versions')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createPromptVersion',
    summary: 'Create and activate a prompt version',
    description:
      "The new version (numbered after the highest) becomes the active one and is answered. Its template may only use the prompt's variables (422 naming an unknown one).",
  })
  @ApiCreatedResponse({ type: CreatedPromptVersionResponse })
  @ApiProblems(404, 422)
  createVersion(
    @CurrentActor() actor: Actor,
    @Param() params: PromptKeyParams,
    @Body() dto: CreatePromptVersionDto,
  ): Promise<CreatedPromptVersionResponse> {
    return this.prompts.createVersion(actor.userId, params.prompt_key, dto);
  }

  @Post(':prompt_key/preview')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'previewPrompt',
    summary: 'Render a prompt with variables',
    description:
      'Renders the active version (or `version`) and shows what the redaction guardrail would send. Nothing is sent to a provider. A missing variable answers 422 naming it (`variables.<name>`).',
  })
  @ApiOkResponse({ type: PromptPreviewResponse })
  @ApiProblems(404, 422)
  preview(@Param() params: PromptKeyParams, @Body() dto: PreviewPromptDto): Promise<PromptPreviewResponse> {
    return this.prompts.preview(params.prompt_key, dto);
  }

  @Post(':prompt_key/reset')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'resetPrompt',
    summary: 'Reset a prompt to its code default',
    description:
      'Deactivates the stored versions (they stay listed); the code default (version 0) is used again.',
  })
  @ApiOkResponse({ type: PromptDetailResponse })
  @ApiProblems(404, 422)
  reset(@Param() params: PromptKeyParams): Promise<PromptDetailResponse> {
    return this.prompts.reset(params.prompt_key);
  }
}
