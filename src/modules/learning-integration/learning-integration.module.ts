import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { InboundWebhookMessage } from './entities/inbound-webhook-message.entity';
import { LearningIntegration } from './entities/learning-integration.entity';
import { LearningIntegrationController, LearningWebhookController } from './learning.controller';
import { LearningIntegrationQueries } from './learning-integration.queries';
import { LearningIntegrationService } from './learning-integration.service';
import { LearningWebhookService } from './learning-webhook.service';

/** The inbound learning-system webhook that keeps users' AI literacy fields current, and its settings. */
@Module({
  imports: [TypeOrmModule.forFeature([LearningIntegration, InboundWebhookMessage]), UsersModule],
  controllers: [LearningIntegrationController, LearningWebhookController],
  providers: [LearningIntegrationService, LearningWebhookService, LearningIntegrationQueries],
})
export class LearningIntegrationModule {}
