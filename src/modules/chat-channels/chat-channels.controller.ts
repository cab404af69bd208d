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
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { ChatChannelsService } from './chat-channels.service';
import {
  ChatChannelParams,
  ChatChannelResponse,
  ChatChannelTestResponse,
  CreateChatChannelDto,
  UpdateChatChannelDto,
} from './dto/chat-channel.dto';

const ADMIN_ONLY =
  "Space Admin only: chat channels post the space's events to Slack, Microsoft Teams or Google Chat.";

const DELIVERY =
  "Messages are posted on the job runner in the platform's own format (Slack Block Kit `blocks` with a fallback " +
  '`text`; a Teams workflow message with one Adaptive Card 1.5 attachment; Google Chat `cardsV2`), each with the ' +
  "event's title, severity, space, affected products and a link under PUBLIC_BASE_URL; user data is escaped for " +
  'each format and never read as markup or a mention. Each message is retried up to 3 times, after 1 s, 5 s and ' +
  "25 s (a `Retry-After` of up to 60 s replaces the wait). When a channel's last 5 messages failed after their " +
  'retries, it is disabled (`is_enabled` false, `failing_since` set) and the space admins get a ' +
  '`chat_channel_disabled` notification naming it.';

@ApiTags('Chat channels')
@Controller('spaces/:slug/chat-channels')
export class ChatChannelsController {
  constructor(private readonly channels: ChatChannelsService) {}

  @Get()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'listChatChannels',
    summary: 'List the chat channels of a space',
    description: `${ADMIN_ONLY} Oldest first; \`{items, total}\` with \`skip\`/\`limit\`.`,
  })
  @ApiOkResponse({ type: PageOf(ChatChannelResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() page: PageQuery,
  ): Promise<Page<ChatChannelResponse>> {
    return this.channels.list(access.space, page);
  }

  @Post()
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'createChatChannel',
    summary: "Post a space's events to a Slack, Microsoft Teams or Google Chat channel",
    description: `${ADMIN_ONLY} ${DELIVERY}`,
  })
  @ApiCreatedResponse({ type: ChatChannelResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateChatChannelDto,
  ): Promise<ChatChannelResponse> {
    return this.channels.create(actor, access.space, dto);
  }

  @Get(':id')
  @SpaceRole('admin')
  @ApiOperation({ operationId: 'getChatChannel', summary: 'Read a chat channel', description: ADMIN_ONLY })
  @ApiOkResponse({ type: ChatChannelResponse })
  @ApiProblems(404, 422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: ChatChannelParams): Promise<ChatChannelResponse> {
    return this.channels.get(access.space, params.id);
  }

  @Patch(':id')
  @SpaceRole('admin')
  @ApiOperation({
    operationId: 'updateChatChannel',
    summary: 'Change a chat channel',
    description: `${ADMIN_ONLY} Only the fields given change; the kind stays.`,
  })
  @ApiOkResponse({ type: ChatChannelResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ChatChannelParams,
    @Body() dto: UpdateChatChannelDto,
  ): Promise<ChatChannelResponse> {
    return this.channels.update(actor, access.space, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('admin')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteChatChannel',
    summary: 'Delete a chat channel and its queued messages',
    description: ADMIN_ONLY,
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404, 422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ChatChannelParams,
  ): Promise<void> {
    await this.channels.delete(actor, access.space, params.id);
  }

  @Post(':id/test')
  @SpaceRole('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testChatChannel',
    summary: 'Post a test message now',
    description:
      `${ADMIN_ONLY} Sent once, synchronously, in the channel's format (no retries; not counted towards disabling; ` +
      'a disabled channel can be tested too). Answers whether the platform took it, its HTTP status and why not.',
  })
  @ApiOkResponse({ type: ChatChannelTestResponse })
  @ApiProblems(404, 422)
  test(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ChatChannelParams,
  ): Promise<ChatChannelTestResponse> {
    return this.channels.test(access.space, params.id);
  }
}
