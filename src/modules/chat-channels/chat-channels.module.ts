import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '../../platform/clock/clock.service';
import { CatalogModule } from '../catalog/catalog.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { ChatChannelsController } from './chat-channels.controller';
import { ChatChannelQueries } from './chat-channels.queries';
import { ChatChannelsService } from './chat-channels.service';
import { ChatDeliveriesService } from './chat-deliveries.service';
import { ChatChannel } from './entities/chat-channel.entity';
import { ChatMessage } from './entities/chat-message.entity';

@Module({
  imports: [CatalogModule, NotificationsModule, TypeOrmModule.forFeature([ChatChannel, ChatMessage])],
  controllers: [ChatChannelsController],
  // Its own clock: tests move the coalescing window and retry times without touching the rate limiter's.
  providers: [ChatChannelsService, ChatDeliveriesService, ChatChannelQueries, Clock],
})
export class ChatChannelsModule {}
