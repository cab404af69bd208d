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
  CreateStandardPageDto,
  ListStandardPagesQuery,
  StandardPagePageResponse,
  StandardPagePathParams,
  StandardPageResponse,
  UpdateStandardPageDto,
} from './dto/standard-page.dto';
import { StandardsService } from './standards.service';

const DRAFTS =
  'Drafts exist for editors and admins only: for a viewer a draft is 404, and lists show published pages.';

@ApiTags('Standards pages')
@Controller('spaces/:slug/standards')
export class StandardsController {
  constructor(private readonly standards: StandardsService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createStandardPage',
    summary: 'Write a standards page (edit access)',
    description:
      'A draft unless `status: published` is given (then `published_at` is set). Emits `standard_page.created`.',
  })
  @ApiCreatedResponse({ type: StandardPageResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateStandardPageDto,
  ): Promise<StandardPageResponse> {
    return this.standards.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listStandardPages',
    summary: "List a space's standards pages",
    description: `Most recently changed first, \`{items, total}\` with \`skip\` and \`limit\` (default 50, at most 200). ${DRAFTS}`,
  })
  @ApiOkResponse({ type: StandardPagePageResponse })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListStandardPagesQuery,
  ): Promise<InstanceType<typeof StandardPagePageResponse>> {
    return this.standards.list(access, query);
  }

  @Get(':id')
  @SpaceRole('viewer')
  @ApiOperation({ operationId: 'getStandardPage', summary: 'Read a standards page', description: DRAFTS })
  @ApiOkResponse({ type: StandardPageResponse })
  @ApiProblems(422)
  get(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StandardPagePathParams,
  ): Promise<StandardPageResponse> {
    return this.standards.get(access, params.id);
  }

  @Patch(':id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updateStandardPage',
    summary: 'Change a standards page (edit access)',
    description:
      'Partial: fields left out are kept. Emits `standard_page.updated` (with `changed`) when the title or body changed, ' +
      'and `standard_page.published` / `unpublished` when `status` moved.',
  })
  @ApiOkResponse({ type: StandardPageResponse })
  @ApiProblems(422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StandardPagePathParams,
    @Body() dto: UpdateStandardPageDto,
  ): Promise<StandardPageResponse> {
    return this.standards.update(actor, access, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteStandardPage',
    summary: 'Delete a standards page (edit access)',
    description: 'Emits `standard_page.deleted`; its vector leaves the semantic index.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StandardPagePathParams,
  ): Promise<void> {
    return this.standards.delete(actor, access, params.id);
  }

  @Post(':id/publish')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'publishStandardPage',
    summary: 'Publish a standards page (edit access)',
    description:
      'Every member can then read it; `published_at` is set. 409 when it is published already. Emits `standard_page.published`.',
  })
  @ApiOkResponse({ type: StandardPageResponse })
  @ApiProblems(409, 422)
  publish(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StandardPagePathParams,
  ): Promise<StandardPageResponse> {
    return this.standards.publishPage(actor, access, params.id);
  }

  @Post(':id/unpublish')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'unpublishStandardPage',
    summary: 'Take a standards page back to draft (edit access)',
    description:
      '`published_at` becomes null and the page leaves the semantic index. 409 when it is a draft already. Emits `standard_page.unpublished`.',
  })
  @ApiOkResponse({ type: StandardPageResponse })
  @ApiProblems(409, 422)
  unpublish(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: StandardPagePathParams,
  ): Promise<StandardPageResponse> {
    return this.standards.unpublishPage(actor, access, params.id);
  }
}
