import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { Webhook } from './entities/webhook.entity';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhooksController } from './webhooks.controller';
import { WebhookQueries } from './webhooks.queries';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [UsersModule, TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookAttempt])],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookDeliveriesService, WebhookQueries],
})
export class WebhooksModule {}
