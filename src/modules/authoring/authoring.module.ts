import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiModule } from '../ai/ai.module';
import { ToolProvidersModule } from '../tool-providers/tool-providers.module';
import { AuthoringTasksController } from './authoring-tasks.controller';
import { AuthoringTasksService } from './authoring-tasks.service';
import { ConsentsController } from './consents.controller';
import { ConsentsService } from './consents.service';
import { AuthoringTask } from './entities/authoring-task.entity';
import { WebSearchConsent } from './entities/web-search-consent.entity';
import { WebSearchEvidence } from './entities/web-search-evidence.entity';
import { WebSearchQueries } from './web-search.queries';
import { WebSearchService } from './web-search.service';

/** Pipeline authoring: tasks, and the web-search facade with consent and evidence. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AuthoringTask, WebSearchConsent, WebSearchEvidence]),
    AiModule,
    ToolProvidersModule,
  ],
  controllers: [AuthoringTasksController, ConsentsController],
  providers: [AuthoringTasksService, ConsentsService, WebSearchService, WebSearchQueries],
})
export class AuthoringModule {}
