import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  BooleanField,
  EnumField,
  QueryBooleanField,
  QueryIntField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { NOTIFICATION_TYPES } from '../notification-types';

export class NotificationResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: NOTIFICATION_TYPES })
  type: string;

  @ApiProperty()
  title: string;

  @ApiProperty()
  message: string;

  @ApiProperty()
  read: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Type-specific ids such as `alert_id`, `product_id`, `severity`, `request_id`, `space_id`.',
  })
  data: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class NotificationListResponse {
  @ApiProperty({ type: NotificationResponse, isArray: true })
  items: NotificationResponse[];

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ type: 'integer', description: '1-based.' })
  page: number;

  @ApiProperty({ type: 'integer' })
  size: number;
}

export class ListNotificationsQuery {
  @QueryBooleanField({ description: 'Only unread notifications.' })
  unread_only?: boolean;

  @EnumField(NOTIFICATION_TYPES, { optional: true })
  type?: string;

  @QueryIntField({ min: 1, default: 1, description: '1-based page number.' })
  page?: number = 1;

  @QueryIntField({ min: 1, max: 100, default: 20 })
  size?: number = 20;
}

export class UpdateNotificationDto {
  @BooleanField({ description: '`true` marks it read, `false` unread again.' })
  read: boolean;
}

export class MarkAllReadDto {
  @EnumField(NOTIFICATION_TYPES, { optional: true, description: 'Only notifications of this type.' })
  type?: string;
}

export class MarkAllReadResponse {
  @ApiProperty({ type: 'integer', description: 'How many notifications changed from unread to read.' })
  marked_read: number;
}

export class UnreadCountResponse {
  @ApiProperty({ type: 'integer' })
  count: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Unread count per notification type (types with none are left out).',
    example: { quality_alert: 3 },
  })
  by_type: Record<string, number>;
}

export class NotificationIdParams {
  @UuidField()
  id: string;
}
