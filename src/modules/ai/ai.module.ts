import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiConfigController } from './ai-config.controller';
import { AiConfigCache } from './ai-config.cache';
import { AiConfigService } from './ai-config.service';
import { AiLogsAdminController, AiLogsController } from './ai-logs.controller';
import { AiLogsService } from './ai-logs.service';
import { AiOpsController } from './ai-ops.controller';
import { AiOpsService } from './ai-ops.service';
import { AiRetentionService } from './ai-retention.service';
import { BudgetsController } from './budgets.controller';
import { ModelRoutingController } from './model-routing.controller';
import { PromptsController } from './prompts.controller';
import { AiGatewayService } from './ai-gateway.service';
import { AiLogStore } from './ai-log.store';
import { BudgetsService } from './budgets.service';
import { AiBudget } from './entities/ai-budget.entity';
import { AiConfig } from './entities/ai-config.entity';
import { AiLog } from './entities/ai-log.entity';
import { AiModelProfile } from './entities/ai-model-profile.entity';
import { AiModelRoute } from './entities/ai-model-route.entity';
import { AiPromptVersion } from './entities/ai-prompt-version.entity';
import { AiSpan } from './entities/ai-span.entity';
import { AiUsageDaily } from './entities/ai-usage-daily.entity';
import { AiUserUsageDaily } from './entities/ai-user-usage-daily.entity';
import { AiWorkflowRun } from './entities/ai-workflow-run.entity';
import { ModelRoutingService } from './model-routing.service';
import { PromptsService } from './prompts.service';
import { AiQueries } from './ai.queries';
import { ProviderClient } from './providers/provider.client';

/**
 * AI administration and the gateway. Other modules import this one and call
 * AiGatewayService.complete; nothing else reaches a provider.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      AiConfig,
      AiModelProfile,
      AiModelRoute,
      AiPromptVersion,
      AiBudget,
      AiLog,
      AiUsageDaily,
      AiUserUsageDaily,
      AiWorkflowRun,
      AiSpan,
    ]),
  ],
  controllers: [
    AiConfigController,
    ModelRoutingController,
    PromptsController,
    BudgetsController,
    AiLogsAdminController,
    AiLogsController,
    AiOpsController,
  ],
  providers: [
    AiConfigService,
    ModelRoutingService,
    PromptsService,
    BudgetsService,
    ProviderClient,
    AiLogStore,
    AiGatewayService,
    AiLogsService,
    AiOpsService,
    AiRetentionService,
    AiQueries,
    AiConfigCache,
  ],
  exports: [AiGatewayService, AiLogsService],
})
export class AiModule {}
