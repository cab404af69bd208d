import {
  Body,
  Controller,
  Get,
  HttpCode,
  MessageEvent,
  Param,
  Patch,
  Post,
  Query,
  Sse,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Observable } from 'rxjs';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import {
  ListNotificationsQuery,
  MarkAllReadDto,
  MarkAllReadResponse,
  NotificationIdParams,
  NotificationListResponse,
  NotificationResponse,
  UnreadCountResponse,
  UpdateNotificationDto,
} from './dto/notification.dto';
import { NotificationStream } from './notification-stream.service';
import { NotificationsService } from './notifications.service';

@ApiTags('Notifications')
@Controller('notifications')
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly stream: NotificationStream,
  ) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listNotifications',
    summary: 'List my notifications, newest first',
    description:
      'The signed-in user’s notifications, newest first, a page at a time; filter by read state or type.',
  })
  @ApiOkResponse({ type: NotificationListResponse })
  @ApiProblems(422)
  list(
    @CurrentActor() actor: Actor,
    @Query() query: ListNotificationsQuery,
  ): Promise<NotificationListResponse> {
    return this.notifications.list(actor, query);
  }

  @Get('unread-count')
  @Authenticated()
  @ApiOperation({
    operationId: 'countUnreadNotifications',
    summary: 'Count my unread notifications, in all and by type',
    description:
      'How many of the signed-in user’s notifications are unread, in all and by notification type.',
  })
  @ApiOkResponse({ type: UnreadCountResponse })
  unreadCount(@CurrentActor() actor: Actor): Promise<UnreadCountResponse> {
    return this.notifications.unreadCount(actor.userId);
  }

  @Sse('stream')
  @Authenticated()
  @ApiProduces('text/event-stream')
  @ApiOperation({
    operationId: 'streamNotifications',
    summary: 'Live stream of my notifications (Server-Sent Events)',
    description:
      'Sends an `unread_count` event (`{count, by_type}`) on connect and whenever it changes, and a `notification` event with each new notification. A `heartbeat` event every 25 seconds keeps idle connections open through proxies. Authenticate with the `Authorization` header (browsers use a fetch-based event-source client).',
  })
  @ApiOkResponse({ description: 'An endless text/event-stream.', schema: { type: 'string' } })
  live(@CurrentActor() actor: Actor): Observable<MessageEvent> {
    return this.stream.open(actor.userId);
  }

  @Post('mark-all-read')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'markAllNotificationsRead',
    summary: 'Mark all my notifications read',
    description: 'An optional `type` limits it to one notification type. Answers how many changed.',
  })
  @ApiOkResponse({ type: MarkAllReadResponse })
  @ApiProblems(422)
  markAllRead(@CurrentActor() actor: Actor, @Body() dto: MarkAllReadDto): Promise<MarkAllReadResponse> {
    return this.notifications.markAllRead(actor, dto.type);
  }

  @Patch(':id')
  @Authenticated()
  @ApiOperation({
    operationId: 'updateNotification',
    summary: 'Mark one of my notifications read or unread',
    description:
      'Sets `read` on one of the signed-in user’s notifications; another user’s notification is 404.',
  })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @Param() params: NotificationIdParams,
    @Body() dto: UpdateNotificationDto,
  ): Promise<NotificationResponse> {
    return this.notifications.setRead(actor, params.id, dto.read);
  }
}
