import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { NotificationCounter } from './entities/notification-counter.entity';
import { Notification } from './entities/notification.entity';
import { NotificationStream } from './notification-stream.service';
import { NotificationsController } from './notifications.controller';
import { NotificationQueries } from './notifications.queries';
import { NotificationsService } from './notifications.service';

@Module({
  imports: [UsersModule, TypeOrmModule.forFeature([Notification, NotificationCounter])],
  controllers: [NotificationsController],
  providers: [NotificationsService, NotificationStream, NotificationQueries],
  exports: [NotificationsService],
})
export class NotificationsModule {}
